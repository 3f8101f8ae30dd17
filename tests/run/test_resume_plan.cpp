// The run choice rank 0 shares, and the resume plan made once per run before a
// resume touches the run directory: from step 0 when no checkpoint verifies,
// from the newest checkpoint otherwise, another split of the same global batch
// converted to this run's position, and a changed recipe detected.
#include "run/resume_plan.h"
#include "run/run_choice.h"
#include "recipe/recipe.h"
#include "registry/registry.h"
#include "train/training_state.h"
#include "util/diagnostic.h"

#include "run_files.h"
#include "shared.h"

#include "catch.h"

#include <filesystem>

using namespace runner;
namespace fs = std::filesystem;
using runner::test::run_command;
using runner::test::runner_exe;

namespace {

// The --set values of the finished run below, as a list.
std::vector<std::string> run_sets(const std::string& dir) {
  return {"run.output_dir=" + dir + "/runs", "data.cache_dir=" + dir + "/cache", "run.threads=1",
          "data.max_train_examples=64", "data.max_eval_examples=32"};
}

const std::string& run_folder() {
  static const std::string dir = runner::test::tmp_dir("resume_plan_run");
  return dir;
}

// A completed smoke run of 8 steps (64 pairs, batch 16, 2 epochs), checkpoints at 4 and 8.
std::string finished_run() {
  static const std::string run = [] {
    std::string sets;
    for (const auto& s : run_sets(run_folder())) sets += " --set " + s;
    auto r = run_command(runner_exe() + " " + runner::test::smoke_recipe() + sets);
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    return runner::test::only_run_dir(run_folder());
  }();
  return run;
}

std::string copy_of_run(const std::string& name) {
  std::string to = runner::test::tmp_dir("resume_plan_" + name) + "/run";
  fs::copy(finished_run(), to, fs::copy_options::recursive);
  return to;
}

// The smoke recipe as the run loaded it, with `more` --set values on top.
Recipe recipe_with(const std::vector<std::string>& more) {
  RecipeRequest request;
  request.path = runner::test::smoke_recipe();
  request.overrides = run_sets(run_folder());
  request.overrides.insert(request.overrides.end(), more.begin(), more.end());
  RecipeLoad load = load_recipe(request, registry());
  INFO(format_all(load.diags));
  REQUIRE(load.recipe);
  return *load.recipe;
}

ResumePlan plan_for(const std::string& run, const Recipe& recipe, std::vector<std::string> allow = {}) {
  const SessionSettings settings = decode_settings(recipe);
  return plan_resume({recipe, settings, RunPaths{run}, nullptr, std::move(allow)});
}

}  // namespace

TEST_CASE("run choice: new and resume travel between ranks as one text and come back the same", "[run]") {
  for (RunChoice::Kind kind : {RunChoice::Kind::New, RunChoice::Kind::Resume}) {
    const RunChoice sent{kind, "/runs/name/20260101T000000Z-abcdef"};
    const std::string text = run_choice_text(sent);
    CHECK(text == (kind == RunChoice::Kind::New ? "new:" : "resume:") + sent.dir);
    const RunChoice got = run_choice_from_text(text);
    CHECK(got.kind == kind);
    CHECK(got.dir == sent.dir);
    CHECK(got.resuming() == (kind == RunChoice::Kind::Resume));
  }
  // A directory may itself hold a colon: only the first one separates.
  CHECK(run_choice_from_text("resume:/runs/a:b").dir == "/runs/a:b");
  for (const char* bad : {"", "new:", "resume", "later:/runs/x", "/runs/x"})
    CHECK_THROWS_AS(run_choice_from_text(bad), std::runtime_error);
}

TEST_CASE("resume plan: the newest checkpoint and its training state, nothing changed", "[run]") {
  const std::string run = copy_of_run("newest");
  ResumePlan plan = plan_for(run, recipe_with({}));
  CHECK(plan.point.step == 8);
  CHECK(fs::path(plan.point.checkpoint).filename() == "step-00000008");
  REQUIRE(plan.state);
  CHECK(plan.state->global_step == 8);
  CHECK(plan.position.then == plan.position.now);
  CHECK(plan.position.now.global_batch() == 16);
  CHECK_FALSE(plan.topology_changed());
  CHECK(plan.changes.empty());
  CHECK(plan.data);  // opened once to hash its files, for the session to go on with
}

TEST_CASE("resume plan: a run without a valid checkpoint continues from step 0", "[run]") {
  const std::string run = copy_of_run("no_checkpoint");
  fs::remove_all(run + "/checkpoints");
  fs::create_directories(run + "/checkpoints");
  ResumePlan plan = plan_for(run, recipe_with({}));
  CHECK(plan.point.checkpoint.empty());
  CHECK(plan.point.step == 0);
  CHECK_FALSE(plan.state);
  REQUIRE(plan.point.warnings.size() == 1);
  CHECK(plan.point.warnings[0].find("starts again from step 0") != std::string::npos);
}

TEST_CASE("resume plan: another split of the same global batch converts the position", "[run]") {
  const std::string run = copy_of_run("topology");
  // Two batches of 16 into the epoch: 32 examples, four micro-batches of 8.
  runner::test::edit_checkpoint_state(run + "/checkpoints/step-00000008",
                                      [](nlohmann::json& s) { s["batch_in_epoch"] = 2; });
  ResumePlan plan = plan_for(run, recipe_with({"data.train_batch_size=8", "train.grad_accum=2"}));
  CHECK(plan.topology_changed());
  CHECK(plan.position.then == BatchTopology{1, 16, 1});
  CHECK(plan.position.now == BatchTopology{1, 8, 2});
  CHECK(plan.position.batch_in_epoch == 4);
  CHECK(plan.changes.empty());  // the split's own keys are checked as a split, not as changes
  // Half the global batch is no split of it.
  CHECK_THROWS_WITH(plan_for(run, recipe_with({"data.train_batch_size=8"})),
                    Catch::Contains("same global batch"));
}

TEST_CASE("resume plan: a changed recipe is detected, refused unless allowed", "[run]") {
  const std::string run = copy_of_run("changed");
  CHECK_THROWS_WITH(plan_for(run, recipe_with({"train.epochs=3"})),
                    Catch::Contains("1 change") && Catch::Contains("--allow-changes train.epochs"));
  ResumePlan allowed = plan_for(run, recipe_with({"train.epochs=3"}), {"train.epochs"});
  REQUIRE(allowed.changes.size() == 1);
  CHECK(allowed.changes[0].key == "train.epochs");
  CHECK(allowed.changes[0].after.rfind("3", 0) == 0);
}
