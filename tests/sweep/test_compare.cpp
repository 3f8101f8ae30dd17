// `runner compare`: tolerance semantics in both directions, exit codes 0/1/2,
// baselines, and the readable diff of two real runs.
#include "catch.h"

#include "shared.h"
#include "sweep/compare.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace runner;
using runner::test::run_command;

namespace {

// A hand-written run directory: final f1/accuracy/loss and two evaluations.
std::string fake_run(const std::string& dir, double f1, double loss, double lr) {
  fs::create_directories(dir);
  nlohmann::json summary = {{"status", "completed"},
                            {"final", {{"f1", f1}, {"accuracy", 0.7}, {"loss", loss}, {"examples", 64}}},
                            {"best", {{"metric", "f1"}, {"value", f1}, {"step", 8}}}};
  std::ofstream(dir + "/summary.json") << summary.dump();
  std::ofstream(dir + "/metrics.jsonl")
      << nlohmann::json{{"event", "train"}, {"step", 1}, {"loss", 0.7}}.dump() << "\n"
      << nlohmann::json{{"event", "eval"}, {"step", 4}, {"f1", f1 - 0.1}, {"loss", loss + 0.1}}.dump() << "\n"
      << nlohmann::json{{"event", "eval"}, {"step", 8}, {"f1", f1}, {"loss", loss}}.dump() << "\n";
  std::ofstream(dir + "/recipe.resolved.json") << nlohmann::json{{"optimizer", {{"lr", lr}}}}.dump();
  std::ofstream(dir + "/env.json") << nlohmann::json{{"threads", 2}}.dump();
  return dir;
}

std::string compare(const std::string& args) { return runner::test::runner_exe() + " compare " + args; }

}  // namespace

TEST_CASE("tolerances: worse by more than max(abs, rel * |A|) regresses, in both directions",
          "[sweep]") {
  MetricCheck higher{"eval.f1", 0.01, 0.0, true};
  CHECK_FALSE(check_metric(0.80, 0.795, higher).regressed);  // worse by 0.005 <= 0.01
  CHECK_FALSE(check_metric(0.80, 0.79, higher).regressed);   // exactly at the tolerance
  CHECK(check_metric(0.80, 0.785, higher).regressed);        // worse by 0.015
  CHECK_FALSE(check_metric(0.80, 0.95, higher).regressed);   // improvements never fail
  MetricCheck lower{"eval.loss", 0.0, 0.10, false};          // 10% of A = 0.05
  CHECK_FALSE(check_metric(0.50, 0.54, lower).regressed);
  CHECK(check_metric(0.50, 0.56, lower).regressed);
  CHECK_FALSE(check_metric(0.50, 0.10, lower).regressed);
  MetricCheck both{"eval.f1", 0.02, 0.01, true};  // the larger allowance wins: 0.02
  CHECK(check_metric(0.80, 0.775, both).allowed == Approx(0.02));
  CHECK_FALSE(check_metric(0.80, 0.781, both).regressed);
  MetricCheck exact{"eval.f1", 0.0, 0.0, true};
  CHECK_FALSE(check_metric(0.8, 0.8, exact).regressed);
  CHECK(check_metric(0.8, 0.7999, exact).regressed);
}

TEST_CASE("compare exits 0 within tolerance, 1 on regression, 2 on bad input", "[sweep]") {
  std::string dir = runner::test::tmp_dir("compare-codes");
  std::string a = fake_run(dir + "/a", 0.80, 0.50, 1e-3);
  std::string b = fake_run(dir + "/b", 0.78, 0.60, 3e-4);
  CHECK(run_command(compare(a + " " + b + " --metric eval.f1 --abs-tol 0.03")).exit_code == 0);
  CHECK(run_command(compare(a + " " + b + " --metric eval.f1 --abs-tol 0.01")).exit_code == 1);
  // Loss is lower-is-better by default: 0.60 vs 0.50 is worse by 0.1.
  CHECK(run_command(compare(a + " " + b + " --metric eval.loss --abs-tol 0.05")).exit_code == 1);
  CHECK(run_command(compare(b + " " + a + " --metric eval.loss --abs-tol 0.05")).exit_code == 0);
  // An explicit direction turns the same numbers around.
  CHECK(run_command(compare(a + " " + b + " --metric eval.loss --direction higher")).exit_code == 0);
  // One tolerance per metric; best.* reads the eval curve.
  auto two = run_command(compare(a + " " + b + " --metric eval.f1 --abs-tol 0.03 "
                                 "--metric best.f1 --abs-tol 0.001"));
  CHECK(two.exit_code == 1);
  CHECK(two.out.find("REGRESS  best.f1") != std::string::npos);
  CHECK(two.out.find("ok       eval.f1") != std::string::npos);

  CHECK(run_command(compare(a + " " + dir + "/missing --metric eval.f1")).exit_code == 2);
  CHECK(run_command(compare(a + " " + b + " --metric eval.nope")).exit_code == 2);
  CHECK(run_command(compare(a + " " + b + " --metric eval.f1 --abs-tol -1")).exit_code == 2);
  CHECK(run_command(compare(a + " " + b + " --metric eval.f1 --direction up")).exit_code == 2);
  CHECK(run_command(compare(a + " " + b + " --metric f1")).exit_code == 2);
  auto mismatch = run_command(compare(a + " " + b + " --metric eval.f1 --metric eval.loss "
                                      "--abs-tol 1 --abs-tol 2 --abs-tol 3"));
  CHECK(mismatch.exit_code == 2);
  CHECK(mismatch.out.find("--abs-tol was given twice after --metric eval.loss") != std::string::npos);
}

TEST_CASE("compare's tolerances belong to the --metric they follow", "[sweep]") {
  std::string dir = runner::test::tmp_dir("compare-binding");
  std::string a = fake_run(dir + "/a", 0.80, 0.50, 1e-3);
  std::string b = fake_run(dir + "/b", 0.78, 0.60, 3e-4);
  // f1 may drop by 1% of 0.80 (it dropped 0.02), the loss may grow by 0.2 (it grew 0.1):
  // the loss's 0.2 must not excuse f1.
  auto bound = run_command(compare(a + " " + b + " --metric eval.f1 --rel-tol 0.01 --metric eval.loss --abs-tol 0.2"));
  INFO(bound.out);
  CHECK(bound.exit_code == 1);
  CHECK(bound.out.find("REGRESS  eval.f1") != std::string::npos);
  CHECK(bound.out.find("ok       eval.loss") != std::string::npos);
  // A tolerance before every --metric is each one's that has none.
  auto shared = run_command(compare(a + " " + b + " --abs-tol 0.03 --metric eval.f1 --metric eval.loss --abs-tol 0.2"));
  INFO(shared.out);
  CHECK(shared.exit_code == 0);
  auto tight = run_command(compare(a + " " + b + " --abs-tol 0.01 --metric eval.f1 --metric eval.loss --abs-tol 0.2"));
  CHECK(tight.exit_code == 1);
  CHECK(tight.out.find("REGRESS  eval.f1") != std::string::npos);
}

TEST_CASE("compare diffs two real runs, and a run against its own baseline", "[sweep]") {
  std::string dir = runner::test::tmp_dir("compare-real");
  std::string recipe = runner::test::source_dir() + "/recipes/smoke/mrpc_smoke.toml";
  std::string common = " --set run.output_dir=" + dir + " --set train.epochs=1"
                       " --set data.max_train_examples=64 --set data.max_eval_examples=64"
                       " --set train.eval_every=2 --set run.loggers=jsonl";
  REQUIRE(run_command(runner::test::runner_exe() + " run " + recipe + common +
                      " --set run.name=a").exit_code == 0);
  REQUIRE(run_command(runner::test::runner_exe() + " run " + recipe + common +
                      " --set run.name=b --set optimizer.lr=3e-4").exit_code == 0);
  std::string a, b;
  for (const auto& e : fs::directory_iterator(dir + "/a")) a = e.path().string();
  for (const auto& e : fs::directory_iterator(dir + "/b")) b = e.path().string();

  auto diff = run_command(compare(a + " " + b));
  INFO(diff.out);
  CHECK(diff.exit_code == 0);
  CHECK(diff.out.find("Final evaluation") != std::string::npos);
  CHECK(diff.out.find("eval.f1") != std::string::npos);
  CHECK(diff.out.find("Eval curve of f1 by step") != std::string::npos);
  CHECK(diff.out.find("Resolved recipe differences (2)") != std::string::npos);  // lr, run.name
  CHECK(diff.out.find("optimizer.lr: A 0.001 | B 0.0003") != std::string::npos);

  auto baseline = run_command(compare("--write-baseline " + a + " 2>/dev/null"));
  REQUIRE(baseline.exit_code == 0);
  nlohmann::json base = nlohmann::json::parse(baseline.out);
  CHECK(base["format"] == "runner-baseline");
  CHECK(base["recipe_sha256"].get<std::string>().size() == 64);
  std::ofstream(dir + "/a.baseline.json") << baseline.out;
  auto same = run_command(compare(dir + "/a.baseline.json " + a + " --metric eval.f1 --metric eval.loss"));
  INFO(same.out);
  CHECK(same.exit_code == 0);  // zero tolerance: the run is its own baseline
  CHECK(same.out.find("Resolved recipe differences (0)") != std::string::npos);
  CHECK(run_command(compare("--write-baseline " + dir)).exit_code == 2);  // not a run directory
}

TEST_CASE("compare reads records whose fields have the wrong type without a library message", "[sweep]") {
  // Records of the wrong type are said, never a raw nlohmann type_error.
  std::string dir = runner::test::tmp_dir("compare-types");
  std::string a = fake_run(dir + "/a", 0.80, 0.50, 1e-3);
  std::string b = fake_run(dir + "/b", 0.78, 0.60, 3e-4);
  std::ofstream(b + "/summary.json", std::ios::trunc)
      << R"({"status": "completed", "final": {"f1": 0.78}, "best": {"metric": 7, "value": 0.78}})";
  std::ofstream(b + "/metrics.jsonl", std::ios::app) << R"({"event": 5, "step": 9, "f1": 0.1})" "\n";
  std::ofstream(dir + "/baseline.json") << R"({"format": "runner-baseline", "run_dir": 3, "final": {"f1": 0.8}})";
  for (const std::string& pair : {a + " " + b, dir + "/baseline.json " + b}) {
    auto r = run_command(compare(pair));
    INFO(r.out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("type_error") == std::string::npos);
    CHECK(r.out.find("json.exception") == std::string::npos);
  }
}

TEST_CASE("compare draws the eval curve of a best metric spelled eval.loss", "[sweep]") {
  // The summary may name its best metric with the "eval." prefix; eval events key
  // their losses as "loss". The curve shows the values at steps 4 and 8.
  std::string dir = runner::test::tmp_dir("compare-eval-loss");
  std::string a = fake_run(dir + "/a", 0.80, 0.50, 1e-3);
  std::string b = fake_run(dir + "/b", 0.78, 0.60, 3e-4);
  for (const std::string& run : {a, b}) {
    nlohmann::json s = nlohmann::json::parse(runner::test::read_text(run + "/summary.json"));
    s["best"] = {{"metric", "eval.loss"}, {"value", s["final"]["loss"]}, {"step", 8}};
    std::ofstream(run + "/summary.json") << s.dump();
  }
  auto diff = run_command(compare(a + " " + b));
  INFO(diff.out);
  CHECK(diff.exit_code == 0);
  CHECK(diff.out.find("Eval curve of loss by step") != std::string::npos);
  CHECK(diff.out.find("         4     0.6000     0.7000     +0.1000") != std::string::npos);
  CHECK(diff.out.find("         8     0.5000     0.6000     +0.1000") != std::string::npos);
  CHECK(diff.out.find("best.loss                  0.5000     0.6000") != std::string::npos);
}

TEST_CASE("compare names a file's key in the environment diff as --allow-changes spells it", "[sweep]") {
  std::string dir = runner::test::tmp_dir("compare-env-keys");
  std::string a = fake_run(dir + "/a", 0.80, 0.50, 1e-3);
  std::string b = fake_run(dir + "/b", 0.80, 0.50, 1e-3);
  std::ofstream(a + "/env.json") << R"({"content_sha256": {"/tmp/d~x/dev.tsv": "aa"}})";
  std::ofstream(b + "/env.json") << R"({"content_sha256": {"/tmp/d~x/dev.tsv": "bb"}})";
  auto diff = run_command(compare(a + " " + b));
  INFO(diff.out);
  CHECK(diff.out.find("content_sha256./tmp/d~x/dev.tsv: A \"aa\" | B \"bb\"") != std::string::npos);
  CHECK(diff.out.find("~1") == std::string::npos);
  CHECK(diff.out.find("~0") == std::string::npos);
}

TEST_CASE("compare into a pipe whose reader leaves early ends quietly", "[sweep]") {
  // A reader that leaves before the output comes is normal for a pipe (`| head`):
  // no message on standard error, and SIGPIPE's status 141 for `set -o pipefail`.
  // The writer starts 0.3 s late, so that `true` has closed the pipe by then.
  std::string dir = runner::test::tmp_dir("compare-head");
  std::string a = fake_run(dir + "/a", 0.80, 0.50, 1e-3);
  std::string b = fake_run(dir + "/b", 0.78, 0.60, 3e-4);
  auto r = run_command("bash -c '(sleep 0.3; " + compare(a + " " + b) + " 2>" + dir +
                       "/err) | true; echo rc=${PIPESTATUS[0]}'");
  INFO(r.out);
  CHECK(r.out.find("rc=141") != std::string::npos);
  CHECK(runner::test::read_text(dir + "/err").empty());
}
