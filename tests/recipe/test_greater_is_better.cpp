// train.greater_is_better follows train.metric_for_best's name
// unless the recipe sets it (a name ending in "loss" is lower-is-better, as in
// Transformers' Trainer), and maximising a loss explicitly is warned about.
#include "catch.h"

#include "shared.h"

#include "recipe/recipe.h"
#include "train/train_options.h"

using namespace runner;

namespace {

RecipeLoad load_smoke(std::vector<std::string> sets) {
  RecipeRequest request;
  request.path = test::smoke_recipe();
  request.overrides = std::move(sets);
  return load_recipe(request, registry());
}

bool resolved_greater_is_better(const RecipeLoad& l) {
  REQUIRE(l.recipe);
  return trainer_config_from(l.recipe->section("train")).greater_is_better;
}

const Diagnostic* warning_on(const RecipeLoad& l, const std::string& key) {
  for (const auto& d : l.diags)
    if (d.key_path == key && d.severity == Severity::Warning) return &d;
  return nullptr;
}

}  // namespace

TEST_CASE("greater_is_better defaults to false for a metric named like a loss", "[recipe]") {
  RecipeLoad l = load_smoke({"train.metric_for_best=eval.loss"});
  INFO(format_all(l.diags));
  CHECK_FALSE(resolved_greater_is_better(l));
  CHECK(l.recipe->resolved["train"]["greater_is_better"] == false);  // print-config shows it
  CHECK(warning_on(l, "train.greater_is_better") == nullptr);
  for (const char* metric : {"eval.f1", "eval.accuracy"}) {
    INFO(metric);
    CHECK(resolved_greater_is_better(load_smoke({std::string("train.metric_for_best=") + metric})));
  }
  CHECK(resolved_greater_is_better(load_smoke({})));  // the dataset's main metric
}

TEST_CASE("greater_is_better set by the recipe wins over the metric's name", "[recipe]") {
  RecipeLoad l = load_smoke({"train.metric_for_best=eval.loss", "train.greater_is_better=true"});
  INFO(format_all(l.diags));
  CHECK(resolved_greater_is_better(l));
  const Diagnostic* w = warning_on(l, "train.greater_is_better");
  REQUIRE(w);
  CHECK_THAT(w->message, Catch::Contains("maximises") && Catch::Contains("eval.loss"));
  CHECK_THAT(w->hint, Catch::Contains("remove greater_is_better"));

  RecipeLoad f1 = load_smoke({"train.metric_for_best=eval.f1", "train.greater_is_better=false"});
  CHECK_FALSE(resolved_greater_is_better(f1));
  CHECK(warning_on(load_smoke({"train.metric_for_best=eval.f1", "train.greater_is_better=true"}),
                   "train.greater_is_better") == nullptr);
}

TEST_CASE("the [train] binding derives greater_is_better where a section leaves it out", "[recipe]") {
  CHECK_FALSE(train_options().decode({{"metric_for_best", "eval.loss"}}).greater_is_better);
  CHECK(train_options().decode({{"metric_for_best", "eval.mcc"}}).greater_is_better);
  CHECK(train_options().decode(nlohmann::json::object()).greater_is_better);
  CHECK(train_options().decode({{"metric_for_best", "eval.loss"}, {"greater_is_better", true}}).greater_is_better);
}
