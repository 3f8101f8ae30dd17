// The run records through the real `runner`: every event carries its time;
// a run that max_steps stops inside an epoch records its final evaluation as
// an evaluation; a killed run reads as died and a resume adds up the wall
// time of its sessions; an early-stopped run says so; a piped console reads as lines a person can follow,
// ending with the command that applies, and a terminal's bar shows the epoch
// and an evaluation under way.
#include "report/run_history.h"
#include "run/run_dir.h"
#include "train/checkpoint_io.h"
#include "util/synced_file.h"

#include "run_files.h"
#include "shared.h"

#include "catch.h"

#include <chrono>
#include <filesystem>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;
using runner::test::events;
using runner::test::only_run_dir;
using runner::test::isolated_run_sets;
using runner::test::run_command;
using runner::test::runner_cmd;

namespace {

using runner::test::smoke_recipe;

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(runner::read_file_bytes(path)); }

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The most significant digits of any fractional number shown as key=value
// (0.0008929 has 4; counts such as parameters=4386178 are whole and exact).
int most_significant_digits(const std::string& text) {
  int most = 0;
  const std::regex number(R"(=(-?[0-9]*\.[0-9]+)(e[-+][0-9]+)?\b)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it) {
    std::string digits;
    for (char c : (*it)[1].str())
      if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
    digits.erase(0, digits.find_first_not_of('0'));
    most = std::max(most, static_cast<int>(digits.size()));
  }
  return most;
}

}  // namespace

TEST_CASE("every event in metrics.jsonl and train.log carries its wall-clock time and elapsed seconds", "[e2e]") {
  std::string dir = runner::test::tmp_dir("records-time");
  double before = unix_now();
  auto r = runner_cmd("", smoke_recipe() + isolated_run_sets(dir));
  double after = unix_now();
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string run = only_run_dir(dir);
  double last_elapsed = 0;
  int count = 0;
  for (const auto& line : lines_of(runner::read_file_bytes(run + "/metrics.jsonl"))) {
    nlohmann::json e = nlohmann::json::parse(line);
    INFO(line);
    REQUIRE(e.contains("wall_time"));
    REQUIRE(e.contains("elapsed_s"));
    CHECK(e["wall_time"].get<double>() >= before - 1);
    CHECK(e["wall_time"].get<double>() <= after + 1);
    CHECK(e["elapsed_s"].get<double>() >= last_elapsed);
    last_elapsed = e["elapsed_s"].get<double>();
    ++count;
  }
  CHECK(count > 10);
  nlohmann::json summary = read_json(run + "/summary.json");
  CHECK(std::abs(last_elapsed - summary["total_wall_seconds"].get<double>()) < 2.0);
  const std::regex stamped(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \+\d[^ ]*s? [a-z_]+( |$))");
  auto log = lines_of(runner::read_file_bytes(run + "/train.log"));
  CHECK(log.size() > 10);
  for (const auto& line : log) {
    if (line.rfind("  ", 0) == 0) continue;  // the end line's second line: the command to run next
    INFO(line);
    CHECK(std::regex_search(line, stamped));
  }
}

TEST_CASE("a run stopped by max_steps inside an epoch records its final evaluation as an evaluation", "[e2e]") {
  std::string dir = runner::test::tmp_dir("records-max-steps");
  // 16 steps an epoch: the run stops at step 10, with no epoch-end evaluation before it.
  auto r = runner_cmd("", smoke_recipe() + isolated_run_sets(dir) + " --set train.max_steps=10");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string run = only_run_dir(dir);
  auto evals = events(run, "eval");
  REQUIRE(evals.size() == 1);
  CHECK(evals[0]["step"] == 10);
  CHECK(evals[0]["is_best"] == true);
  nlohmann::json summary = read_json(run + "/summary.json");
  REQUIRE(summary.contains("best"));
  CHECK(summary["best"]["step"] == 10);
  CHECK(summary["best"]["value"] == summary["final"]["f1"]);
  CHECK(summary["final"]["f1"] == evals[0]["f1"]);

  runner::RunHistory h = runner::load_run_history(run);
  REQUIRE(h.eval_series.count("f1"));
  auto points = h.eval_series.at("f1").points();
  REQUIRE(points.size() == 1);
  CHECK(points[0].first == 10);  // the report's evaluation charts get the point
  auto ls = run_command(runner::test::runner_exe() + " ls " + dir + "/runs");
  INFO(ls.out);
  CHECK(ls.out.find("eval.f1=") != std::string::npos);
}

TEST_CASE("a run that early stopping ends is completed in summary.json and early_stopped where a person reads it",
          "[e2e]") {
  std::string dir = runner::test::tmp_dir("records-early-stop");
  // A learning rate of 1e-30 moves no weight by a float32 step (the smallest
  // weight step near 0.02 is 2e-9; a zero bias becomes 1e-30, far below the
  // rounding of any activation): every evaluation equals the first, none is
  // better, and patience 1 stops the run at the second, step 4 of 8.
  auto r = runner_cmd("", smoke_recipe() + isolated_run_sets(dir) +
                              " --set optimizer.lr=1e-30 --set train.eval_every=2 --set train.max_steps=8"
                              " --set train.early_stopping_patience=1");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("end completed (early stopping") != std::string::npos);
  std::string run = only_run_dir(dir);
  nlohmann::json summary = read_json(run + "/summary.json");
  CHECK(summary["status"] == "completed");  // sweeps, compare and resume take it as a finished run
  CHECK(summary["stopped_early"] == true);
  CHECK(summary["global_step"] == 4);
  auto ends = events(run, "end");
  REQUIRE(ends.size() == 1);
  CHECK(ends[0]["stopped_early"] == true);

  auto ls = run_command(runner::test::runner_exe() + " ls --json " + dir + "/runs");
  INFO(ls.out);
  REQUIRE(ls.exit_code == 0);
  CHECK(nlohmann::json::parse(ls.out).at(0).at("status") == "early_stopped");
  auto report = run_command(runner::test::runner_exe() + " report " + run + " --out " + dir + "/r.html");
  INFO(report.out);
  REQUIRE(report.exit_code == 0);
  CHECK(runner::test::read_text(dir + "/r.html").find("early_stopped") != std::string::npos);
}

TEST_CASE("a run killed with SIGKILL reads as died, and its resume sums the wall time of both sessions", "[e2e]") {
  std::string dir = runner::test::tmp_dir("records-died");
  auto r = runner_cmd("RUNNER_HEARTBEAT_SECONDS=0.1 RUNNER_TEST_KILL_AT_STEP=10",
                      smoke_recipe() + isolated_run_sets(dir) + " --set train.checkpoint_every=4");
  INFO(r.out);
  REQUIRE(r.exit_code != 0);
  std::string run = only_run_dir(dir);
  nlohmann::json killed = read_json(run + "/summary.json");
  CHECK(killed["status"] == "running");  // what the process could write before it was killed
  CHECK(killed["process"]["pid"].get<long long>() > 0);
  auto ls = run_command(runner::test::runner_exe() + " ls --json " + dir + "/runs");
  INFO(ls.out);
  REQUIRE(ls.exit_code == 0);
  nlohmann::json rows = nlohmann::json::parse(ls.out);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["status"] == "died");
  double killed_wall = rows[0]["wall_seconds"].get<double>();
  CHECK(killed_wall > 0.0);  // the heartbeat's, not the 0.0 written at the start
  auto table = run_command(runner::test::runner_exe() + " ls " + dir + "/runs");
  CHECK(table.out.find(" died ") != std::string::npos);

  auto resumed = runner_cmd("", "resume " + run);
  INFO(resumed.out);
  REQUIRE(resumed.exit_code == 0);
  nlohmann::json s = read_json(run + "/summary.json");
  CHECK(s["status"] == "completed");
  REQUIRE(s["segments"].size() == 2);
  CHECK(s["segments"][0]["status"] == "died");
  CHECK(s["segments"][0]["wall_seconds"].get<double>() == killed_wall);
  CHECK(s["segments"][1]["status"] == "completed");
  double sum = s["segments"][0]["wall_seconds"].get<double>() + s["segments"][1]["wall_seconds"].get<double>();
  CHECK(std::abs(s["total_wall_seconds"].get<double>() - sum) < 1e-9);
  CHECK(s["wall_seconds"] == s["segments"][1]["wall_seconds"]);
}

TEST_CASE("a piped console shows step, epoch and loss first, rounded, and ends with the command that applies", "[e2e]") {
  std::string dir = runner::test::tmp_dir("records-console");
  auto r = runner_cmd("", smoke_recipe() + isolated_run_sets(dir));
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string run = only_run_dir(dir);
  CHECK(std::regex_search(r.out, std::regex(R"(\+[0-9.sm]+ train step=4/32 epoch=0 loss=[0-9.]{3,6} )")));
  CHECK(most_significant_digits(r.out) <= 4);
  CHECK(r.out.find("{\"") == std::string::npos);  // no raw JSON dump
  CHECK(std::regex_search(r.out, std::regex(R"(end completed step=32/32 after [0-9.]+s \([0-9.]+ samples/s\): best eval\.f1=)")));
  CHECK(r.out.find("see it with: runner report " + run + "\n") != std::string::npos);

  std::string term_dir = runner::test::tmp_dir("records-console-term");
  auto t = runner_cmd("RUNNER_TEST_TERM_AT_STEP=5", smoke_recipe() + isolated_run_sets(term_dir));
  INFO(t.out);
  CHECK(t.exit_code == 143);
  CHECK(t.out.find("end interrupted by SIGTERM step=5/32") != std::string::npos);
  CHECK(t.out.find("continue with: runner resume " + only_run_dir(term_dir) + "\n") != std::string::npos);
}

TEST_CASE("a terminal's bar shows the epoch and an evaluation under way", "[e2e]") {
  if (!fs::exists("/usr/bin/script")) {
    WARN("no /usr/bin/script (util-linux) to give the run a terminal");
    return;
  }
  std::string dir = runner::test::tmp_dir("records-tty");
  std::string cmd = runner::test::runner_exe() + " " + smoke_recipe() + isolated_run_sets(dir);
  auto r = run_command("script -qefc '" + cmd + "' /dev/null");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  // Epochs done, as the lines' epoch=N counts them: 16 steps an epoch.
  CHECK(r.out.find("8/32 epoch 0.50/2 loss ") != std::string::npos);
  CHECK(r.out.find("16/32 epoch 1.00/2 evaluating ") != std::string::npos);
  CHECK(r.out.find("32/32 epoch 2.00/2 ") != std::string::npos);
}
