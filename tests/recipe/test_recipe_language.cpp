// The recipe language end to end through the library: TOML/YAML twins,
// extends, environment interpolation and typed --set overrides.
#include "catch.h"

#include "shared.h"

#include "recipe/emit.h"
#include "recipe/recipe.h"
#include "recipe/schema.h"

#include <cstdlib>
#include <fstream>

using namespace runner;

namespace {

std::string recipe_path(const std::string& rel) {
  return test::source_dir() + "/tests/recipes/" + rel;
}

RecipeLoad load(const std::string& path, std::vector<std::string> sets = {}) {
  RecipeRequest req;
  req.path = path;
  req.overrides = std::move(sets);
  return load_recipe(req, registry());
}

Recipe must_load(const std::string& path, std::vector<std::string> sets = {}) {
  RecipeLoad l = load(path, std::move(sets));
  INFO(format_all(l.diags));
  REQUIRE(l.recipe);
  return *l.recipe;
}

std::string errors_of(const RecipeLoad& l) { return format_all(l.diags); }

}  // namespace

TEST_CASE("TOML and YAML twins resolve to byte-identical output in every format", "[recipe]") {
  Recipe t = must_load(recipe_path("twins/twin.toml"));
  Recipe y = must_load(recipe_path("twins/twin.yaml"));
  for (auto f : {RecipeFormat::Toml, RecipeFormat::Yaml, RecipeFormat::Json})
    CHECK(emit_recipe(t.resolved, f) == emit_recipe(y.resolved, f));
  // And the values are the ones written, typed by the schema.
  CHECK(t.resolved["optimizer"]["lr"] == 3e-5);
  CHECK(t.resolved["optimizer"]["betas"] == nlohmann::ordered_json({0.85, 0.995}));
  CHECK(t.resolved["train"]["epochs"].is_number_float());
  CHECK(t.resolved["data"]["columns"]["text_a"] == "sentence");
}

TEST_CASE("printed output reads back to the same resolved recipe", "[recipe]") {
  Recipe t = must_load(recipe_path("twins/twin.toml"));
  std::string dir = test::tmp_dir("roundtrip");
  for (auto [ext, f] : {std::pair{".toml", RecipeFormat::Toml}, std::pair{".yaml", RecipeFormat::Yaml}}) {
    std::string path = dir + "/printed" + ext;
    std::ofstream(path) << emit_recipe(t.resolved, f);
    Recipe again = must_load(path);
    again.resolved["run"]["name"] = t.resolved["run"]["name"];  // named after the file otherwise
    CHECK(emit_recipe(again.resolved, RecipeFormat::Json) == emit_recipe(t.resolved, RecipeFormat::Json));
  }
}

TEST_CASE("extends merges depth-first, later wins, lists replace", "[recipe]") {
  Recipe r = must_load(recipe_path("extends/derived.toml"));
  CHECK(r.resolved["run"]["name"] == "derived");   // this file
  CHECK(r.resolved["run"]["seed"] == 1);           // base.toml
  CHECK(r.resolved["optimizer"]["lr"] == 5e-5);    // mixin.yaml over base.toml
  CHECK(r.resolved["optimizer"]["weight_decay"] == 0.01);
  CHECK(r.resolved["train"]["grad_accum"] == 2);   // mixin.yaml
  CHECK(r.resolved["train"]["epochs"] == 7.0);     // this file over both
  REQUIRE(r.files.size() == 3);
  CHECK(r.location_of("optimizer.lr").file.find("mixin.yaml") != std::string::npos);
  CHECK(r.location_of("optimizer.lr").line == 6);
}

TEST_CASE("an extends cycle is an error naming the whole cycle", "[recipe]") {
  RecipeLoad l = load(recipe_path("invalid/cycle_a.toml"));
  CHECK_FALSE(l.recipe);
  CHECK_THAT(errors_of(l), Catch::Contains("extends cycle: cycle_a.toml -> cycle_b.toml -> cycle_a.toml"));
}

TEST_CASE("environment variables interpolate, with defaults and $$", "[recipe]") {
  ::setenv("RUNNER_TEST_RUN_NAME", "from-env", 1);
  ::unsetenv("RUNNER_TEST_UNSET_OUTPUT");
  Recipe r = must_load(recipe_path("extends/interpolated.toml"));
  CHECK(r.resolved["run"]["name"] == "from-env");
  CHECK(r.resolved["run"]["output_dir"] == "runs/fallback/$x");

  ::setenv("RUNNER_TEST_UNSET_OUTPUT", "/tmp/elsewhere", 1);
  CHECK(must_load(recipe_path("extends/interpolated.toml")).resolved["run"]["output_dir"] ==
        "/tmp/elsewhere/$x");
  ::unsetenv("RUNNER_TEST_UNSET_OUTPUT");

  ::unsetenv("RUNNER_TEST_RUN_NAME");
  RecipeLoad l = load(recipe_path("extends/interpolated.toml"));
  CHECK_FALSE(l.recipe);
  CHECK_THAT(errors_of(l), Catch::Contains("interpolated.toml:5:8") &&
                               Catch::Contains("RUNNER_TEST_RUN_NAME is not set"));
}

TEST_CASE("--set overrides any key, typed by the schema", "[recipe]") {
  Recipe r = must_load(recipe_path("extends/derived.toml"),
                       {"optimizer.lr=3e-5", "train.grad_accum=8", "run.deterministic=true",
                        "optimizer.betas=[0.8, 0.9]", "run.loggers=jsonl,console",
                        "run.name=over\"ridden", "train.epochs=2", "data.dataset=tsv",
                        "data.dir=glue/SST-2", "data.columns.text_a=sentence"});
  CHECK(r.resolved["optimizer"]["lr"] == 3e-5);
  CHECK(r.resolved["train"]["grad_accum"] == 8);
  CHECK(r.resolved["run"]["deterministic"] == true);
  CHECK(r.resolved["optimizer"]["betas"] == nlohmann::ordered_json({0.8, 0.9}));
  CHECK(r.resolved["run"]["loggers"] == nlohmann::ordered_json({"jsonl", "console"}));
  CHECK(r.resolved["run"]["name"] == "over\"ridden");
  CHECK(r.resolved["train"]["epochs"].is_number_float());
  CHECK(r.resolved["data"]["columns"]["text_a"] == "sentence");  // one entry of a table option
  CHECK(r.location_of("optimizer.lr").origin == "--set optimizer.lr=3e-5");
}

TEST_CASE("a --set of an unknown key or a mistyped value is an error with a suggestion", "[recipe]") {
  RecipeLoad l = load(recipe_path("extends/derived.toml"),
                      {"optimizer.lrr=3e-5", "trian.epochs=1", "train.grad_accum=two"});
  CHECK_FALSE(l.recipe);
  std::string e = errors_of(l);
  CHECK_THAT(e, Catch::Contains("--set optimizer.lrr=3e-5: error: optimizer.lrr") &&
                    Catch::Contains("did you mean \"lr\"?"));
  CHECK_THAT(e, Catch::Contains("unknown section \"trian\"") && Catch::Contains("did you mean \"train\"?"));
  CHECK_THAT(e, Catch::Contains("train.grad_accum: expected an integer >= 1, found \"two\""));
}

TEST_CASE("cross-field rules: warmup given twice, fp16 on a CPU, offload on a CPU build", "[recipe]") {
  RecipeLoad l = load(recipe_path("extends/derived.toml"),
                      {"scheduler.warmup_steps=5", "scheduler.warmup_ratio=0.1",
                       "train.precision=fp16", "run.device=cpu", "topology.offload=optimizer"});
  std::string e = errors_of(l);
  CHECK_THAT(e, Catch::Contains("both warmup_steps and warmup_ratio are set"));
  // The request's capabilities say no native bf16: emulated bf16 would be slow, so fp32.
  CHECK_THAT(e, Catch::Contains("use precision = \"fp32\" on this CPU (it has no native bf16)"));
  CHECK_THAT(e, Catch::Contains("topology.offload"));
}

TEST_CASE("run.device = cuda without CUDA warns that run refuses it at setup with exit 2", "[recipe]") {
  for (bool cuda_build : {false, true}) {
    RecipeRequest req;
    req.path = test::source_dir() + "/recipes/smoke/mrpc_smoke.toml";
    req.overrides = {"run.device=cuda"};
    req.check_paths = false;
    req.caps.cuda_build = cuda_build;  // and no GPU visible
    RecipeLoad l = load_recipe(req, registry());
    INFO(format_all(l.diags));
    REQUIRE(l.recipe);  // valid: a login node without a GPU validates GPU recipes
    const Diagnostic* device = nullptr;
    for (const auto& d : l.diags)
      if (d.key_path == "run.device") device = &d;
    REQUIRE(device != nullptr);
    CHECK(device->severity == Severity::Warning);
    CHECK_THAT(device->hint, Catch::Contains("`runner run` here refuses it at setup (exit code 2") &&
                                 Catch::Contains("device = \"auto\""));
    CHECK(device->hint.find("will fail") == std::string::npos);
  }
}

TEST_CASE("a relative path starts where it is written: the recipe's folder, or the working folder for --set",
          "[recipe]") {
  std::string dir = test::tmp_dir("relative-paths");
  std::filesystem::create_directories(dir + "/recipes");
  std::filesystem::create_directories(dir + "/work");
  std::ofstream(dir + "/recipes/r.toml") << "[data]\ndataset = \"tsv\"\n";
  std::string cwd = std::filesystem::current_path().string();
  std::filesystem::current_path(dir + "/work");
  // On the command line, ../nosuch is <dir>/work/../nosuch; in recipes/bad.toml, <dir>/recipes/../nosuch.
  RecipeLoad from_set = load(dir + "/recipes/r.toml", {"data.dir=../nosuch"});
  std::ofstream(dir + "/recipes/bad.toml") << "[data]\ndataset = \"tsv\"\ndir = \"../nosuch\"\n";
  RecipeLoad bad_in_file = load(dir + "/recipes/bad.toml");
  std::filesystem::current_path(cwd);
  CHECK_FALSE(from_set.recipe);
  CHECK_THAT(errors_of(from_set), Catch::Contains("resolved to " + dir + "/nosuch") &&
                                      Catch::Contains("with --set") &&
                                      Catch::Contains("starts at the working folder, " + dir + "/work"));
  CHECK_FALSE(bad_in_file.recipe);
  CHECK_THAT(errors_of(bad_in_file), Catch::Contains("resolved to " + dir + "/nosuch") &&
                                         Catch::Contains("starts at that recipe's folder, " + dir + "/recipes"));
  CHECK_THAT(errors_of(bad_in_file), !Catch::Contains("working folder"));
}

TEST_CASE("the recipe schema follows the components a registry gains", "[recipe]") {
  // Validation reuses one parsed schema per registry state: a component
  // registered later (a plugin's) must reach it.
  Registry reg;
  register_builtins(reg);
  const nlohmann::json doc = {{"scheduler", {{"type", "every_third"}, {"drop_every", 3}}}};
  const auto before = recipe_schema_violations(reg, doc);
  REQUIRE_FALSE(before.empty());
  CHECK(before == schema_violations(recipe_schema(reg), doc));

  ComponentSpec spec{Kind::Scheduler, "every_third", "a test scheduler", {opt::integer("drop_every", 1, "steps")}};
  REQUIRE(reg.add(std::move(spec), std::any{}, "test").empty());
  CHECK(recipe_schema_violations(reg, doc).empty());
  // A value the new option's schema refuses is found through the same cache.
  const nlohmann::json wrong = {{"scheduler", {{"type", "every_third"}, {"drop_every", "three"}}}};
  const auto refused = recipe_schema_violations(reg, wrong);
  CHECK_FALSE(refused.empty());
  CHECK(refused == schema_violations(recipe_schema(reg), wrong));
}
