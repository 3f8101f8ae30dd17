// A metric whose name ends in "loss" is lower-is-better unless
// train.greater_is_better says otherwise, as in Transformers' Trainer; the best
// checkpoint of a run that picks it by eval.loss is the one of the lowest loss.
// A completed run bounded by max_steps is lengthened by max_steps, and resume
// says so.
#include "run_files.h"
#include "shared.h"

#include "catch.h"

#include <algorithm>

using runner::test::events;
using runner::test::isolated_run_sets;
using runner::test::only_run_dir;
using runner::test::runner_cmd;
using runner::test::smoke_recipe;

TEST_CASE("a run picking its best by eval.loss keeps the lowest loss as best", "[e2e]") {
  std::string dir = runner::test::tmp_dir("best_by_loss");
  // 16 steps, an evaluation every 4: four losses to choose from.
  auto r = runner_cmd("", smoke_recipe() + isolated_run_sets(dir) +
                              " --set train.metric_for_best=eval.loss --set train.eval_every=4"
                              " --set train.max_steps=16 --set train.checkpoint_every=0");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string run = only_run_dir(dir);
  auto evals = events(run, "eval");
  REQUIRE(evals.size() >= 2);
  double lowest = evals.front()["loss"].get<double>();
  for (const auto& e : evals) {
    INFO("step " << e["step"] << " loss " << e["loss"]);
    double loss = e["loss"].get<double>();
    // A new best is exactly a loss below every earlier one (the first is always one).
    CHECK(e.value("is_best", false) == (&e == &evals.front() || loss < lowest));
    lowest = std::min(lowest, loss);
  }
  auto summary = runner::test::run_summary(run);
  CHECK(summary["best"]["metric"] == "eval.loss");
  CHECK(summary["best"]["value"].get<double>() == lowest);  // the same double, read back from JSON
}

TEST_CASE("resuming a completed run bounded by max_steps says to raise max_steps", "[e2e]") {
  std::string dir = runner::test::tmp_dir("resume_by_steps");
  REQUIRE(runner_cmd("", smoke_recipe() + isolated_run_sets(dir) + " --set train.max_steps=4").exit_code == 0);
  auto r = runner_cmd("", "resume " + only_run_dir(dir));
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("completed all 4 steps: nothing to resume"));
  CHECK_THAT(r.out, Catch::Contains("--set train.max_steps=N --allow-changes train.max_steps"));
  CHECK_THAT(r.out, !Catch::Contains("train.epochs"));
}
