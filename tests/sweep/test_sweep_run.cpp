// Running sweeps end to end with the runner executable: the ledger, isolation of
// bad points, the exit code, the summaries, and a sweep killed half-way.
#include "catch.h"

#include "background_command.h"
#include "shared.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <signal.h>

namespace fs = std::filesystem;
using runner::test::run_command;

namespace {

nlohmann::json ledger_of(const std::string& sweep_dir) {
  return nlohmann::json::parse(runner::test::read_text(sweep_dir + "/sweep_ledger.json"));
}

// Tiny points: 64 training pairs, one epoch, one thread each.
std::string tiny_sweep(const std::string& dir, const std::string& axes) {
  std::string path = dir + "/sweep.toml";
  std::ofstream(path) << "name = \"tiny\"\nbase = \"" << runner::test::source_dir()
                      << "/recipes/smoke/mrpc_smoke.toml\"\nmetric = \"eval.f1\"\n"
                      << "output_dir = \"" << dir << "/runs\"\n"
                      << "[set]\n\"train.epochs\" = 1\n\"data.max_train_examples\" = 64\n"
                      << "\"data.max_eval_examples\" = 64\n\"train.checkpoint_every\" = 2\n"
                      << "\"run.loggers\" = [\"jsonl\"]\n"
                      << axes;
  return path;
}

std::string sweep_cmd(const std::string& args) {
  return runner::test::runner_exe() + " sweep " + args;
}

std::vector<std::string> run_dirs(const std::string& point_dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(point_dir))
    if (e.is_directory()) out.push_back(e.path().string());
  return out;
}

}  // namespace

TEST_CASE("a sweep killed mid-way loses nothing and reruns only what is left", "[sweep]") {
  std::string dir = runner::test::tmp_dir("sweep-kill");
  std::string sweep = tiny_sweep(dir, "[grid]\n\"optimizer.lr\" = [1e-3, 3e-4, 1e-4]\n");
  std::string sweep_dir = dir + "/runs/tiny";
  // The hook SIGKILLs the sweep process as soon as its first point completes.
  auto killed = run_command("RUNNER_TEST_SWEEP_KILL_AFTER=1 " + sweep_cmd(sweep));
  INFO(killed.out);
  REQUIRE(killed.exit_code == 137);
  nlohmann::json before = ledger_of(sweep_dir)["points"];
  std::string done;
  int completed = 0;
  for (const auto& [id, p] : before.items())
    if (p["state"] == "completed") done = id, ++completed;
  REQUIRE(completed == 1);
  std::string done_run = run_dirs(sweep_dir + "/" + done).at(0);
  std::string done_summary = runner::test::read_text(done_run + "/summary.json");

  auto rerun = run_command(sweep_cmd(sweep));
  INFO(rerun.out);
  CHECK(rerun.exit_code == 0);
  nlohmann::json after = ledger_of(sweep_dir)["points"];
  REQUIRE(after.size() == 3);
  for (const auto& [id, p] : after.items()) {
    CHECK(p["state"] == "completed");
    CHECK(p["attempts"] == 1);  // nothing ran twice
    CHECK(run_dirs(sweep_dir + "/" + id).size() == 1);
  }
  // The completed point was not touched again.
  CHECK(runner::test::read_text(done_run + "/summary.json") == done_summary);
  CHECK(rerun.out.find("started " + done) == std::string::npos);
  // Running once more does nothing and still says every point completed.
  auto third = run_command(sweep_cmd(sweep));
  CHECK(third.exit_code == 0);
  CHECK(third.out.find("[sweep] started") == std::string::npos);
}

namespace {

// A BERT-Tiny config.json without any weights file beside it.
// Validate sees a weight file there (it checks that one exists); the
// run fails when it reads it: a safetensors header length past the file's end.
void write_damaged_model(const std::string& dir) {
  fs::create_directories(dir);
  std::ofstream(dir + "/config.json")
      << R"({"model_type": "bert", "vocab_size": 30522, "hidden_size": 128, "num_hidden_layers": 2,
             "num_attention_heads": 2, "intermediate_size": 512, "max_position_embeddings": 512,
             "type_vocab_size": 2, "num_labels": 2})";
  std::ofstream(dir + "/model.safetensors", std::ios::binary) << std::string("\xff\xff\x00\x00\x00\x00\x00\x00{", 9);
}

}  // namespace

TEST_CASE("an invalid point and a point that fails at run time do not stop the others",
          "[sweep]") {
  std::string dir = runner::test::tmp_dir("sweep-isolation");
  // A pretrained folder with a valid config.json and a damaged weight file: validate
  // checks the config (shape, memory) and passes; the run fails when it loads the weights.
  write_damaged_model(dir + "/broken_model");
  std::string sweep = tiny_sweep(dir, "[[points]]\n\"optimizer.lr\" = 1e-3\n"
                                      "[[points]]\n\"optimizer.lr\" = -5.0\n"
                                      "[[points]]\n\"model.pretrained\" = \"" + dir + "/broken_model\"\n"
                                      "[[points]]\n\"optimizer.lr\" = 3e-4\n");
  std::string sweep_dir = dir + "/runs/tiny";
  auto r = run_command(sweep_cmd(sweep + " --jobs 2"));
  INFO(r.out);
  CHECK(r.exit_code == 1);
  nlohmann::json summary = nlohmann::json::parse(runner::test::read_text(sweep_dir + "/sweep_summary.json"));
  REQUIRE(summary["points"].size() == 4);
  std::map<std::string, int> by_status;
  for (const auto& p : summary["points"]) ++by_status[p["status"].get<std::string>()];
  CHECK(by_status["completed"] == 2);
  CHECK(by_status["failed"] == 2);
  // Completed points come first, ranked by best eval.f1; failures say why.
  const auto& rows = summary["points"];
  CHECK(rows[0]["status"] == "completed");
  CHECK(rows[1]["status"] == "completed");
  CHECK(rows[0]["best"].get<double>() >= rows[1]["best"].get<double>());
  // --jobs 2 divides the CPU threads between the two points running at once.
  nlohmann::json resolved = nlohmann::json::parse(
      runner::test::read_text(rows[0]["run_dir"].get<std::string>() + "/recipe.resolved.json"));
  CHECK(resolved["run"]["threads"] == std::max(1u, std::thread::hardware_concurrency() / 2));
  std::string errors = rows[2]["error"].get<std::string>() + rows[3]["error"].get<std::string>();
  CHECK(errors.find("invalid point") != std::string::npos);
  CHECK(errors.find("model.safetensors") != std::string::npos);
  std::string md = runner::test::read_text(sweep_dir + "/sweep_summary.md");
  CHECK(md.find("2 of 4 points completed") != std::string::npos);
  CHECK(runner::test::read_text(sweep_dir + "/sweep_summary.csv").find("rank,point,optimizer.lr,model.pretrained,status") == 0);

  // Failed points are skipped on a rerun unless --retry-failed; --status prints the table.
  auto again = run_command(sweep_cmd(sweep));
  CHECK(again.exit_code == 1);
  CHECK(again.out.find("skipped (use --retry-failed)") != std::string::npos);
  auto retry = run_command(sweep_cmd(sweep + " --retry-failed"));
  CHECK(retry.exit_code == 1);
  nlohmann::json ledger = ledger_of(sweep_dir)["points"];
  int retried = 0;
  for (const auto& [id, p] : ledger.items()) retried += p["attempts"] == 2;
  CHECK(retried == 1);  // the run-time failure ran again; the invalid point never runs
  auto status = run_command(sweep_cmd(sweep + " --status"));
  CHECK(status.exit_code == 0);
  // First, or first equal: both learning rates may reach the same f1 on this tiny set.
  CHECK((status.out.find("| 1 | lr-") != std::string::npos || status.out.find("| =1 | lr-") != std::string::npos));
}

TEST_CASE("a point interrupted by the sweep's death resumes from its checkpoint", "[sweep]") {
  std::string dir = runner::test::tmp_dir("sweep-kill-resume");
  // With --jobs 2, a short point and a long one start together; the sweep kills
  // itself when the short one completes, and the long one gets SIGTERM (its
  // parent died), checkpoints and stops.
  std::string sweep = tiny_sweep(dir, "[[points]]\n\"data.max_train_examples\" = 32\n"
                                      "[[points]]\n\"data.max_train_examples\" = 512\n"
                                      "\"train.epochs\" = 2\n");
  std::string sweep_dir = dir + "/runs/tiny";
  auto killed = run_command("RUNNER_TEST_SWEEP_KILL_AFTER=1 " + sweep_cmd(sweep + " --jobs 2"));
  INFO(killed.out);
  REQUIRE(killed.exit_code == 137);
  auto rerun = run_command(sweep_cmd(sweep + " --jobs 2"));
  INFO(rerun.out);
  CHECK(rerun.exit_code == 0);
  nlohmann::json ledger = ledger_of(sweep_dir)["points"];
  for (const auto& [id, p] : ledger.items()) {
    CHECK(p["state"] == "completed");
    std::vector<std::string> runs = run_dirs(sweep_dir + "/" + id);
    REQUIRE(runs.size() == 1);  // resumed in place, never restarted in a new directory
    nlohmann::json summary = nlohmann::json::parse(runner::test::read_text(runs[0] + "/summary.json"));
    if (id.find("max_train_examples-512") == 0) {
      CHECK(p["attempts"] == 2);
      CHECK(summary["resumed_from"].is_string());  // continued from a checkpoint
    } else {
      CHECK(p["attempts"] == 1);
    }
  }
}

// Waits until some run under `dir` has written a checkpoint: the point is under way.
bool wait_for_checkpoint(const std::string& dir) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  while (std::chrono::steady_clock::now() < deadline) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->path().filename() == "metrics.jsonl" &&
          runner::test::read_text(it->path().string()).find("\"checkpoint\"") != std::string::npos)
        return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

TEST_CASE("SIGHUP stops a sweep as SIGTERM does: its point checkpoints and the rerun resumes it",
          "[sweep]") {
  std::string dir = runner::test::tmp_dir("sweep-sighup");
  std::string sweep = tiny_sweep(dir, "[grid]\n\"optimizer.lr\" = [1e-3]\n\"train.epochs\" = [2]\n");
  std::string sweep_dir = dir + "/runs/tiny";
  // 8 steps of at least 300 ms: the signal comes while the point trains.
  pid_t pid = runner::test::start_command("env RUNNER_TEST_STEP_PAUSE_MS=300 " + sweep_cmd(sweep),
                                          dir + "/sweep.log");
  REQUIRE(pid > 0);
  const bool started = wait_for_checkpoint(sweep_dir);
  kill(pid, started ? SIGHUP : SIGKILL);
  const int code = runner::test::wait_exit_code(pid);
  INFO(runner::test::read_text(dir + "/sweep.log"));
  REQUIRE(started);
  CHECK(code == 129);  // exited with 128 + SIGHUP, not killed by it
  const nlohmann::json stopped = ledger_of(sweep_dir)["points"];
  for (const auto& [id, p] : stopped.items()) CHECK(p["state"] == "interrupted");
  auto rerun = run_command(sweep_cmd(sweep));
  INFO(rerun.out);
  CHECK(rerun.exit_code == 0);
  const nlohmann::json finished = ledger_of(sweep_dir)["points"];
  for (const auto& [id, p] : finished.items()) {
    CHECK(p["state"] == "completed");
    std::vector<std::string> runs = run_dirs(sweep_dir + "/" + id);
    REQUIRE(runs.size() == 1);  // resumed in place
    nlohmann::json summary = nlohmann::json::parse(runner::test::read_text(runs[0] + "/summary.json"));
    CHECK(summary["resumed_from"].is_string());
  }
}

TEST_CASE("--fail-fast stops the sweep at the first failed point", "[sweep]") {
  std::string dir = runner::test::tmp_dir("sweep-fail-fast");
  write_damaged_model(dir + "/broken_model");
  std::string sweep = tiny_sweep(dir, "[[points]]\n\"model.pretrained\" = \"" + dir + "/broken_model\"\n"
                                      "[[points]]\n\"optimizer.lr\" = 3e-4\n");
  auto r = run_command(sweep_cmd(sweep + " --fail-fast"));
  INFO(r.out);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("--fail-fast: stopping") != std::string::npos);
  nlohmann::json ledger = ledger_of(dir + "/runs/tiny")["points"];
  std::map<std::string, int> states;
  for (const auto& [id, p] : ledger.items()) ++states[p["state"].get<std::string>()];
  CHECK(states["failed"] == 1);
  CHECK(states["pending"] == 1);  // never started
}

TEST_CASE("a runner rebuilt while its sweep runs starts the later points from the new file", "[sweep]") {
  std::string dir = runner::test::tmp_dir("sweep-rebuilt");
  // A copy of the runner, so the test can replace it as a rebuild does: a new
  // file renamed over the old one, whose running copy is then "(deleted)".
  fs::create_directories(dir + "/bin");
  for (const char* name : {"runner", "runner-torch"})
    fs::copy_file(fs::path(runner::test::runner_exe()).parent_path() / name, fs::path(dir) / "bin" / name);
  std::string sweep = tiny_sweep(dir, "[grid]\n\"optimizer.lr\" = [1e-3, 3e-4, 1e-4]\n");
  std::string log = dir + "/sweep.log";
  pid_t pid = runner::test::start_command(dir + "/bin/runner sweep " + sweep + " --jobs 1", log);
  REQUIRE(wait_for_checkpoint(dir + "/runs"));  // the first point is under way; the others wait
  fs::copy_file(dir + "/bin/runner", dir + "/bin/runner.new");
  fs::rename(dir + "/bin/runner.new", dir + "/bin/runner");
  int exit_code = runner::test::wait_exit_code(pid);
  std::string out = runner::test::read_text(log);
  INFO(out);
  CHECK(exit_code == 0);
  CHECK(out.find("(deleted)") == std::string::npos);
  nlohmann::json ledger = ledger_of(dir + "/runs/tiny")["points"];
  CHECK(ledger.size() == 3);
  for (const auto& [id, p] : ledger.items()) CHECK(p["state"] == "completed");
}

TEST_CASE("a sweep whose every point is invalid exits 2 before its folder exists", "[sweep]") {
  std::string dir = runner::test::tmp_dir("sweep-all-invalid");
  std::string sweep = tiny_sweep(dir, "[grid]\n\"optimizer.lr\" = [-5.0, -1.0]\n");
  auto r = run_command(sweep_cmd(sweep + " 2>&1"));
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("every one of its 2 points is invalid; nothing was run") != std::string::npos);
  CHECK(r.out.find("optimizer.lr") != std::string::npos);
  CHECK_FALSE(fs::exists(dir + "/runs/tiny"));
}
