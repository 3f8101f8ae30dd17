// Metrics by command: a user's program scores each evaluation from the
// predictions file the runner writes; its numbers are logged as eval metrics
// and can pick the best checkpoint. A program that fails, hangs or answers
// garbage stops the run with exit 2, naming the command, and the step it had
// trained is checkpointed with the line that resumes it.
#include "catch.h"

#include "shared.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using runner::test::CommandResult;
using runner::test::run_command;
using runner::test::runner_exe;

namespace {

// A 2-step bert-tiny run on a 4-row CSV, evaluated after each step, with
// `train_lines` appended to [train]; returns its run folder ("" when none).
struct CommandRun {
  CommandResult result;
  std::string run_dir;
};

CommandRun run_with(const std::string& name, const std::string& train_lines) {
  const std::string dir = runner::test::tmp_dir("metric_command_" + name);
  fs::create_directories(dir + "/data");
  std::ofstream(dir + "/data/train.csv") << "text_a,label\na good film,1\na bad film,0\nfine,1\nawful,0\n";
  fs::copy_file(dir + "/data/train.csv", dir + "/data/dev.csv");
  std::ofstream(dir + "/r.toml") << "[run]\nname = \"m\"\noutput_dir = \"" << dir << "/runs\"\n"
                                 << "[data]\ndataset = \"csv\"\ndir = \"" << dir << "/data\"\nmax_length = 16\n"
                                 << "cache_dir = \"" << dir << "/cache\"\ntrain_batch_size = 2\n"
                                 << "[model]\npreset = \"bert-tiny\"\n[train]\nmax_steps = 2\neval_every = 1\n"
                                 << train_lines;
  CommandRun r;
  r.result = run_command("cd " + runner::test::source_dir() + " && " + runner_exe() + " run " + dir + "/r.toml");
  if (fs::exists(dir + "/runs/m"))
    for (const auto& entry : fs::directory_iterator(dir + "/runs/m")) r.run_dir = entry.path().string();
  return r;
}

std::vector<nlohmann::json> eval_events(const std::string& run_dir) {
  std::vector<nlohmann::json> out;
  std::ifstream in(run_dir + "/metrics.jsonl");
  for (std::string line; std::getline(in, line);) {
    auto e = nlohmann::json::parse(line, nullptr, false);
    if (e.is_object() && e.value("event", "") == "eval") out.push_back(e);
  }
  return out;
}

}  // namespace

TEST_CASE("a Python metric program's numbers are eval metrics, equal to the runner's own, and rank the best",
          "[cli][metric_command]") {
  CommandRun r = run_with("python", "metric_command = [\"python3\", \"recipes/metrics/accuracy.py\"]\n"
                                    "metric_for_best = \"eval.command_accuracy\"\n");
  INFO(r.result.out);
  REQUIRE(r.result.exit_code == 0);
  const auto evals = eval_events(r.run_dir);
  REQUIRE(evals.size() == 2);
  for (const auto& e : evals) {
    // The program counts the predictions file's rows and its right answers itself.
    CHECK(e.at("command_examples") == 4);
    CHECK(e.at("command_accuracy").get<double>() == e.at("accuracy").get<double>());
  }
  CHECK(fs::exists(r.run_dir + "/eval_predictions/step-2.jsonl"));
  std::ifstream summary(r.run_dir + "/summary.json");
  const auto s = nlohmann::json::parse(summary);
  CHECK(s.dump().find("command_accuracy") != std::string::npos);
  // A CI gate reads it as it reads a built-in metric: a baseline of the run
  // holds it, and the run compared with its own baseline passes.
  const std::string baseline = r.run_dir + "/../baseline.json";
  CommandResult written = run_command(runner_exe() + " compare --write-baseline " + r.run_dir + " > " + baseline);
  INFO(written.out);
  REQUIRE(written.exit_code == 0);
  CHECK(runner::test::read_text(baseline).find("command_accuracy") != std::string::npos);
  CommandResult gate = run_command(runner_exe() + " compare " + baseline + " " + r.run_dir +
                                   " --metric eval.command_accuracy --abs-tol 0");
  INFO(gate.out);
  CHECK(gate.exit_code == 0);
  CommandResult unknown = run_command(runner_exe() + " compare " + baseline + " " + r.run_dir +
                                      " --metric eval.command_nothing");
  CHECK(unknown.exit_code != 0);  // a metric neither run has is no pass
}

TEST_CASE("a shell metric program works as a Python one does", "[cli][metric_command]") {
  CommandRun r = run_with("shell", "metric_command = [\"sh\", \"recipes/metrics/count_lines.sh\"]\n");
  INFO(r.result.out);
  REQUIRE(r.result.exit_code == 0);
  const auto evals = eval_events(r.run_dir);
  REQUIRE(evals.size() == 2);
  CHECK(evals.back().at("scored_examples") == 4);
}

TEST_CASE("a metric program that hangs, lies or collides stops the run with exit 2 and a resumable checkpoint",
          "[cli][metric_command]") {
  struct Case {
    const char* name;
    const char* lines;
    const char* said;
  };
  const Case cases[] = {
      {"hangs", "metric_command = [\"sh\", \"-c\", \"sleep 30\"]\nmetric_command_timeout_s = 1\n", "ran past its limit of 1 s"},
      {"garbage", "metric_command = [\"echo\", \"not json\"]\n", "printed no JSON object"},
      {"nan", "metric_command = [\"sh\", \"-c\", \"echo '{\\\"x\\\": NaN}'\"]\n", "printed no JSON object"},
      {"collides", "metric_command = [\"sh\", \"-c\", \"echo '{\\\"accuracy\\\": 1}'\"]\n",
       "which the runner computes itself"},
      {"fails", "metric_command = [\"sh\", \"-c\", \"echo broken >&2; exit 3\"]\n", "exited with status 3"},
      {"missing", "metric_command = [\"no-such-metric-program\"]\n", "could not be started"},
      {"floods", "metric_command = [\"yes\"]\n", "printed more than 4 MiB"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CommandRun r = run_with(c.name, c.lines);
    INFO(r.result.out);
    CHECK(r.result.exit_code == 2);
    CHECK_THAT(r.result.out, Catch::Contains("train.metric_command") && Catch::Contains(c.said));
    CHECK_THAT(r.result.out, Catch::Contains("runner resume"));
    CHECK(fs::exists(r.run_dir + "/checkpoints/step-00000001"));
  }
}

TEST_CASE("a run stopped by a broken metric program resumes, once it is fixed, from the step it trained",
          "[cli][metric_command]") {
  CommandRun r = run_with("resumed", "metric_command = [\"echo\", \"not json\"]\n");
  INFO(r.result.out);
  REQUIRE(r.result.exit_code == 2);
  CommandResult resumed = run_command("cd " + runner::test::source_dir() + " && " + runner_exe() + " resume " +
                                      r.run_dir + " --set 'train.metric_command=python3,recipes/metrics/accuracy.py'" +
                                      " --allow-changes train.metric_command");
  INFO(resumed.out);
  REQUIRE(resumed.exit_code == 0);
  const auto evals = eval_events(r.run_dir);
  REQUIRE(!evals.empty());
  CHECK(evals.back().at("step") == 2);
  CHECK(evals.back().at("command_examples") == 4);
}
