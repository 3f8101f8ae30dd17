// A session killed with kill -9 before its first heartbeat (every 30 s by
// default) is recorded in summary.json with the few microseconds of its first
// write, while its events logged seconds. The resumed session's elapsed_s
// starts where the sessions before it ended, so it must start past what they
// logged: elapsed_s never runs backwards in metrics.jsonl.
#include "catch.h"

#include "run_files.h"
#include "shared.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

using namespace runner;

TEST_CASE("elapsed_s never runs backwards after a kill -9 before the first heartbeat", "[cli]") {
  const std::string dir = test::tmp_dir("resumed-elapsed");
  // 10 steps of 200 ms: the killed session logs 2 s at least, under the 30 s heartbeat.
  auto killed = test::runner_cmd("RUNNER_TEST_STEP_PAUSE_MS=200 RUNNER_TEST_KILL_AT_STEP=10",
                                 test::smoke_recipe() + test::isolated_run_sets(dir) +
                                     " --set train.log_every=2 --set train.checkpoint_every=4");
  REQUIRE(killed.exit_code != 0);
  const std::string run = test::only_run_dir(dir);
  auto resumed = test::runner_cmd("", "resume " + run);
  INFO(resumed.out);
  REQUIRE(resumed.exit_code == 0);
  double previous = 0.0;
  long long lines = 0;
  std::string text = test::read_text(run + "/metrics.jsonl");
  for (size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    nlohmann::json e = nlohmann::json::parse(text.substr(start, end - start));
    if (!e.contains("elapsed_s")) continue;
    INFO(e.dump());
    CHECK(e["elapsed_s"].get<double>() >= previous);
    previous = e["elapsed_s"].get<double>();
    ++lines;
  }
  CHECK(lines > 10);
  nlohmann::json summary = test::run_summary(run);
  CHECK(summary["total_wall_seconds"].get<double>() >= previous);
  REQUIRE(summary["segments"].size() == 2);
  CHECK(summary["segments"][0]["status"] == "died");
  CHECK(summary["segments"][0]["wall_seconds"].get<double>() >= 1.8);  // 9 paused steps at least
}

TEST_CASE("SIGHUP (a dropped ssh session) stops a run as SIGTERM does: checkpoint, end line, summary", "[cli]") {
  const std::string dir = test::tmp_dir("sighup");
  // 32 steps of 250 ms; once a step is logged, the run gets SIGHUP.
  const std::string script = "RUNNER_TEST_STEP_PAUSE_MS=250 " + test::runner_exe() + " " + test::smoke_recipe() +
                             test::isolated_run_sets(dir) + " > " + dir + "/run.out 2>&1 & pid=$!; "
                             "for i in $(seq 600); do grep -qs '\"event\":\"train\"' " + dir +
                             "/runs/*/*/metrics.jsonl && break; sleep 0.1; done; kill -HUP $pid; wait $pid; echo rc=$?";
  std::ofstream(dir + "/hup.sh") << script << "\n";
  auto r = test::run_command("bash " + dir + "/hup.sh");
  const std::string out = test::read_text(dir + "/run.out");
  INFO(r.out << "\n--- run:\n" << out);
  CHECK(r.out.find("rc=129") != std::string::npos);  // 128 + SIGHUP, after the end line
  CHECK(out.find("end interrupted by SIGHUP") != std::string::npos);
  const std::string run = test::only_run_dir(dir);
  CHECK(test::run_summary(run)["status"] == "interrupted");
  auto ends = test::events(run, "end");
  REQUIRE(ends.size() == 1);
  CHECK(ends[0]["status"] == "interrupted");
  CHECK_FALSE(test::events(run, "checkpoint_written").empty());
  for (const auto& e : std::filesystem::directory_iterator(run + "/checkpoints"))
    CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
}

TEST_CASE("a resume refuses a summary.json whose status is not a string", "[cli]") {
  const std::string dir = test::tmp_dir("status-number");
  auto killed = test::runner_cmd("RUNNER_TEST_KILL_AT_STEP=4", test::smoke_recipe() + test::isolated_run_sets(dir));
  REQUIRE(killed.exit_code != 0);
  const std::string run = test::only_run_dir(dir);
  nlohmann::json summary = test::run_summary(run);
  summary["status"] = 5;
  std::ofstream(run + "/summary.json") << summary.dump(2);
  const std::string before = test::read_text(run + "/summary.json");
  auto resumed = test::runner_cmd("", "resume " + run);
  INFO(resumed.out);
  CHECK(resumed.exit_code == 2);
  CHECK(resumed.out.find(run + "/summary.json: error: status: expected the run's status as a string") !=
        std::string::npos);
  CHECK(test::read_text(run + "/summary.json") == before);
  CHECK(test::events(run, "resume").empty());
}

TEST_CASE("summary.json names the best metric eval.NAME whether the recipe names it or not", "[cli]") {
  // Unset, the dataset's main metric (MRPC's "f1") picks the best checkpoint.
  for (const std::string set : {"", " --set train.metric_for_best=eval.f1"}) {
    const std::string dir = test::tmp_dir(set.empty() ? "best-metric-default" : "best-metric-named");
    auto r = test::runner_cmd("", test::smoke_recipe() + test::isolated_run_sets(dir) + " --set train.max_steps=4" + set);
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    CHECK(test::run_summary(test::only_run_dir(dir))["best"]["metric"] == "eval.f1");
  }
}
