// The mlflow logger with no tracking URI
// (or one that is not HTTP) is refused before a run directory exists, and a
// server that cannot be reached neither fails nor stops the run and is said
// once. tests/mlflow/mlflow_server.sh (`bash scripts/test.sh mlflow`) checks
// what a real `mlflow server` receives.
#include "catch.h"

#include "run_files.h"
#include "shared.h"

#include <unistd.h>

#include <filesystem>

namespace fs = std::filesystem;
using runner::test::run_command;
using runner::test::runner_exe;
using runner::test::smoke_recipe;

namespace {

// A loopback port that nothing listens on: bound by the kernel's choice, then closed.
int closed_loopback_port() {
  int port = 0;
  int fd = runner::test::bound_loopback_socket(port);
  REQUIRE(fd >= 0);
  close(fd);
  return port;
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string mlflow_run(const std::string& env, const std::string& dir) {
  return env + " " + runner_exe() + " " + smoke_recipe() + " --set run.output_dir=" + dir +
         "/runs --set run.loggers=console,jsonl,mlflow";
}

}  // namespace

TEST_CASE("the mlflow logger without an HTTP tracking server is refused before a run directory exists",
          "[mlflow]") {
  std::string dir = runner::test::tmp_dir("mlflow-refused");
  auto unset = run_command(mlflow_run("env -u MLFLOW_TRACKING_URI", dir));
  INFO(unset.out);
  CHECK(unset.exit_code == 2);
  CHECK(unset.out.find("run.loggers") != std::string::npos);
  CHECK(unset.out.find("MLFLOW_TRACKING_URI is not set") != std::string::npos);
  CHECK(unset.out.find("MLFLOW_TRACKING_URI=http://127.0.0.1:5000") != std::string::npos);  // the fix
  CHECK_FALSE(fs::exists(dir + "/runs"));

  auto file_uri = run_command(mlflow_run("MLFLOW_TRACKING_URI=file:///tmp/mlruns", dir));
  INFO(file_uri.out);
  CHECK(file_uri.exit_code == 2);
  CHECK(file_uri.out.find("over HTTP") != std::string::npos);
  CHECK_FALSE(fs::exists(dir + "/runs"));
}

// `validate` is for the job's environment (a login node validates what a compute node
// runs), so the recipe stays valid, but what `run` would refuse here is said.
TEST_CASE("validate warns of the mlflow logger where no HTTP tracking server is set", "[mlflow]") {
  std::string cmd = " " + runner_exe() + " validate " + smoke_recipe() + " --set run.loggers=console,mlflow";
  auto unset = run_command("env -u MLFLOW_TRACKING_URI" + cmd);
  INFO(unset.out);
  CHECK(unset.exit_code == 0);
  CHECK(unset.out.find("warning") != std::string::npos);
  CHECK(unset.out.find("MLFLOW_TRACKING_URI is not set") != std::string::npos);
  CHECK(unset.out.find("refuses it at setup") != std::string::npos);
  CHECK(unset.out.find("MLFLOW_TRACKING_URI=http://127.0.0.1:5000") != std::string::npos);  // the fix

  auto http = run_command("MLFLOW_TRACKING_URI=http://127.0.0.1:5000" + cmd);
  INFO(http.out);
  CHECK(http.exit_code == 0);
  CHECK(http.out.find("MLFLOW_TRACKING_URI") == std::string::npos);

  auto without = run_command("env -u MLFLOW_TRACKING_URI " + runner_exe() + " validate " + smoke_recipe());
  CHECK(without.out.find("MLFLOW_TRACKING_URI") == std::string::npos);  // no mlflow logger, nothing to say
}

TEST_CASE("a tracking server that cannot be reached neither fails nor stops the run and is said once",
          "[mlflow]") {
  std::string dir = runner::test::tmp_dir("mlflow-unreachable");
  std::string uri = "http://127.0.0.1:" + std::to_string(closed_loopback_port());
  auto r = run_command(mlflow_run("MLFLOW_TRACKING_URI=" + uri, dir));
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(occurrences(r.out, "cannot be reached") == 1);
  CHECK(r.out.find(uri) != std::string::npos);
  CHECK(r.out.find("were not sent to " + uri + "; metrics.jsonl has them all") != std::string::npos);
  std::string run_dir = runner::test::only_run_dir(dir);
  CHECK(runner::test::events(run_dir, "end").at(0)["status"] == "completed");
  // The smoke recipe's 32 steps, logged every 4: all 8 train events are in metrics.jsonl.
  CHECK(runner::test::events(run_dir, "train").size() == 8);
  CHECK_FALSE(fs::exists(run_dir + "/mlflow.json"));  // no MLflow run was ever made
}
