// Plugins built from tests/plugins/: a scheduler that a recipe then uses, and a
// dataset that a run trains on and `runner export` finds again.
#include "catch.h"

#include "run_files.h"
#include "shared.h"

#include "optim/scheduler.h"
#include "recipe/recipe.h"
#include "train/metric.h"

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace runner;

namespace {

// The examples are built under examples/plugins, their broken variants under tests/plugins.
std::string plugin_path(const std::string& name) {
  const std::string example = test::build_dir() + "/examples/plugins/lib" + name + ".so";
  return std::filesystem::exists(example) ? example : test::build_dir() + "/tests/plugins/lib" + name + ".so";
}

// A recipe in a fresh folder that loads `plugin` and selects `scheduler`.
std::string write_recipe(const std::string& dir_name, const std::string& plugin,
                         const std::string& scheduler_lines) {
  std::string dir = test::tmp_dir(dir_name);
  std::string path = dir + "/with_plugin.toml";
  std::ofstream(path) << "plugins = [\"" << plugin_path(plugin) << "\"]\n\n[scheduler]\n"
                      << scheduler_lines;
  return path;
}

}  // namespace

TEST_CASE("runner plugins lists the example plugins the build ships, with the components each adds", "[plugin]") {
  auto listed = test::run_command(test::runner_exe() + " plugins");
  INFO(listed.out);
  REQUIRE(listed.exit_code == 0);
  const std::pair<const char*, const char*> examples[] = {
      {"example_dataset", "    dataset example/labelled_lines: "},
      {"example_metric", "    metric example_balanced_accuracy: "},
      {"example_scheduler", "    scheduler inverse_sqrt: "},
  };
  size_t after = listed.out.find("example plugins (load one with plugins = [");
  REQUIRE(after != std::string::npos);
  for (const auto& [name, component] : examples) {
    INFO(name);
    size_t at = listed.out.find("  " + plugin_path(name) + "\n", after);
    REQUIRE(at != std::string::npos);
    CHECK(listed.out.find(component, at) == listed.out.find("\n", at) + 1);
    after = at;
  }
  // Listed, not loaded: no component above the examples comes from a plugin.
  CHECK(listed.out.substr(0, listed.out.find("example plugins")).find("  [") == std::string::npos);
}

TEST_CASE("a plugin registers a scheduler that a recipe selects", "[plugin]") {
  std::string recipe = write_recipe("plugin_ok", "example_scheduler",
                                    "type = \"inverse_sqrt\"\ntimescale = 4\nwarmup_steps = 2\n");
  auto v = test::run_command(test::runner_exe() + " validate " + recipe);
  INFO(v.out);
  CHECK(v.exit_code == 0);
  auto listed = test::run_command(test::runner_exe() + " plugins " + recipe);
  CHECK_THAT(listed.out, Catch::Contains("inverse_sqrt") &&
                             Catch::Contains(plugin_path("example_scheduler")));
  // The recipe loaded the example scheduler: the examples' list still names what it adds.
  CHECK_THAT(listed.out, Catch::Contains("    scheduler inverse_sqrt: "));

  RecipeRequest req;
  req.path = recipe;
  RecipeLoad l = load_recipe(req, registry());
  INFO(format_all(l.diags));
  REQUIRE(l.recipe);
  auto& factory = registry().factory<SchedulerFactory>(Kind::Scheduler, "inverse_sqrt");
  ScheduleParams p{100, 2, 1e-3};
  LrMultiplier m = factory(l.recipe->section("scheduler"), p);
  // By hand: warmup 0/2, 1/2; then 1/sqrt(1 + (step-2)/4): step 2 -> 1, step 14 -> 1/2.
  CHECK(m(0) == 0.0);
  CHECK(m(1) == 0.5);
  CHECK(m(2) == 1.0);
  CHECK(m(14) == Approx(0.5).epsilon(1e-12));
}

TEST_CASE("a plugin option is checked like a built-in one", "[plugin]") {
  std::string recipe = write_recipe("plugin_bad_option", "example_scheduler",
                                    "type = \"inverse_sqrt\"\ntimescale = 0\n");
  auto v = test::run_command(test::runner_exe() + " validate " + recipe);
  CHECK(v.exit_code == 2);
  CHECK_THAT(v.out, Catch::Contains("with_plugin.toml:5:13") &&
                        Catch::Contains("scheduler.timescale: expected an integer >= 1, found 0"));
}

TEST_CASE("a plugin of another ABI version is refused clearly", "[plugin]") {
  std::string recipe = write_recipe("plugin_bad_abi", "example_scheduler_bad_abi", "type = \"linear\"\n");
  auto v = test::run_command(test::runner_exe() + " validate " + recipe);
  CHECK(v.exit_code == 2);
  CHECK_THAT(v.out, Catch::Contains("with_plugin.toml:1:") &&
                        Catch::Contains("built for plugin ABI version 999") &&
                        Catch::Contains("rebuild the plugin"));
}

TEST_CASE("a plugin registering a built-in name is an error", "[plugin]") {
  std::string recipe = write_recipe("plugin_duplicate", "example_scheduler_duplicate", "type = \"linear\"\n");
  auto v = test::run_command(test::runner_exe() + " validate " + recipe);
  CHECK(v.exit_code == 2);
  CHECK_THAT(v.out, Catch::Contains("scheduler 'linear' is registered twice"));
}

TEST_CASE("a missing plugin file names the file", "[plugin]") {
  std::string recipe = write_recipe("plugin_missing", "no_such_plugin", "type = \"linear\"\n");
  auto v = test::run_command(test::runner_exe() + " validate " + recipe);
  CHECK(v.exit_code == 2);
  CHECK_THAT(v.out, Catch::Contains("libno_such_plugin.so does not exist"));
}

TEST_CASE("a plugin entry that is a FIFO or a folder is refused at once, never opened", "[plugin]") {
  std::string dir = test::tmp_dir("plugin_fifo");
  REQUIRE(mkfifo((dir + "/fifo.so").c_str(), 0600) == 0);
  std::filesystem::create_directories(dir + "/folder.so");
  for (const char* entry : {"fifo.so", "folder.so"}) {
    INFO(entry);
    std::ofstream(dir + "/r.toml") << "plugins = [\"" << dir << "/" << entry << "\"]\n";
    // A dlopen of the FIFO would wait for a writer: the timeout's 124 would say so.
    auto v = test::run_command("timeout 60 " + test::runner_exe() + " validate " + dir + "/r.toml");
    INFO(v.out);
    CHECK(v.exit_code == 2);
    CHECK_THAT(v.out, Catch::Contains(entry) && Catch::Contains("is not a regular file"));
  }
}

namespace {

// A run of the dataset plugin on 64 one-line examples: bert-tiny, one epoch of 8 steps.
std::string train_with_dataset_plugin(const std::string& dir) {
  std::filesystem::create_directories(dir + "/data");
  for (auto [split, n] : {std::pair{"train", 64}, std::pair{"dev", 16}}) {
    std::ofstream f(dir + "/data/" + split + ".txt");
    for (int i = 0; i < n; ++i) f << i % 2 << (i % 2 ? " a warm and lovely film\n" : " a dull cold mess\n");
  }
  std::ofstream(dir + "/plugin_data.toml")
      << "plugins = [\"" << plugin_path("example_dataset") << "\"]\n"
      << "[run]\nname = \"plugin_data\"\nthreads = 1\noutput_dir = \"" << dir << "/runs\"\n"
      << "[data]\ndataset = \"example/labelled_lines\"\ndir = \"" << dir << "/data\"\n"
      << "max_length = 16\ntrain_batch_size = 8\ncache_dir = \"" << dir << "/cache\"\n"
      << "[model]\npreset = \"bert-tiny\"\n[train]\nepochs = 1\n";
  auto r = test::run_command(test::runner_exe() + " " + dir + "/plugin_data.toml");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  return test::only_run_dir(dir, "plugin_data");
}

}  // namespace

TEST_CASE("a run on a plugin's dataset exports, loading the plugin again", "[plugin]") {
  std::string dir = test::tmp_dir("plugin_dataset_export");
  std::string run = train_with_dataset_plugin(dir);
  auto e = test::run_command(test::runner_exe() + " export " + run + " --to " + dir + "/hf");
  INFO(e.out);
  REQUIRE(e.exit_code == 0);
  std::ifstream config_file(dir + "/hf/config.json");
  auto config = nlohmann::json::parse(config_file);
  // The label names come from the plugin's dataset.
  CHECK(config["id2label"] == nlohmann::json{{"0", "no"}, {"1", "yes"}});

  // Without the plugin the export stops with exit 2, names the file, and writes nothing.
  std::string recipe_path = run + "/recipe.resolved.json";
  std::ifstream in(recipe_path);
  auto recipe = nlohmann::json::parse(in);
  recipe["plugins"] = {dir + "/libgone.so"};
  std::ofstream(recipe_path, std::ios::trunc) << recipe.dump(2);
  e = test::run_command(test::runner_exe() + " export " + run + " --to " + dir + "/hf2");
  CHECK(e.exit_code == 2);
  CHECK_THAT(e.out, Catch::Contains(recipe_path) && Catch::Contains("libgone.so does not exist"));
  CHECK_FALSE(std::filesystem::exists(dir + "/hf2"));
}

namespace {

// A csv dataset of 48 labelled lines (32 train, 16 dev) and a recipe that
// evaluates the plugin's metric and picks the best checkpoint by it.
std::string write_metric_recipe(const std::string& dir) {
  std::filesystem::create_directories(dir + "/data");
  for (auto [split, n] : {std::pair{"train", 32}, std::pair{"dev", 16}}) {
    std::ofstream f(dir + "/data/" + split + ".csv");
    f << "text_a,label\n";
    for (int i = 0; i < n; ++i) f << (i % 3 ? "a warm and lovely film,1\n" : "a dull cold mess,0\n");
  }
  std::string recipe = dir + "/plugin_metric.toml";
  std::ofstream(recipe) << "plugins = [\"" << plugin_path("example_metric") << "\"]\n"
                        << "[run]\nname = \"plugin_metric\"\nthreads = 1\noutput_dir = \"" << dir << "/runs\"\n"
                        << "[data]\ndataset = \"csv\"\ndir = \"" << dir << "/data\"\n"
                        << "max_length = 16\ntrain_batch_size = 8\ncache_dir = \"" << dir << "/cache\"\n"
                        << "metrics = [\"accuracy\", \"example_balanced_accuracy\"]\n"
                        << "[model]\npreset = \"bert-tiny\"\n"
                        << "[train]\nepochs = 1\nmetric_for_best = \"eval.example_balanced_accuracy\"\n";
  return recipe;
}

}  // namespace

TEST_CASE("a plugin's metric is evaluated and picks the best checkpoint", "[plugin]") {
  std::string dir = test::tmp_dir("plugin_metric");
  std::string recipe = write_metric_recipe(dir);
  auto v = test::run_command(test::runner_exe() + " validate " + recipe);
  INFO(v.out);
  REQUIRE(v.exit_code == 0);

  // The plugin's function, loaded here too: classes 0 (2 of 3 right) and 1 (1 of 1): (2/3 + 1) / 2.
  RecipeRequest req;
  req.path = recipe;
  REQUIRE(load_recipe(req, registry()).recipe);
  MetricInput in;
  in.predictions = {0, 1, 0, 1};
  in.labels = {0, 0, 0, 1};
  CHECK(compute_metrics({"example_balanced_accuracy"}, in).at("example_balanced_accuracy").get<double>() ==
        Approx(5.0 / 6.0).margin(1e-15));  // two divisions and a sum of two: a few roundings of 1.1e-16

  auto r = test::run_command(test::runner_exe() + " " + recipe);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string run = test::only_run_dir(dir, "plugin_metric");
  std::ifstream summary_file(run + "/summary.json");
  auto summary = nlohmann::json::parse(summary_file);
  CHECK(summary["best"]["metric"] == "eval.example_balanced_accuracy");
  REQUIRE(summary["best"]["value"].is_number());
  double best = summary["best"]["value"];
  CHECK(best >= 0.0);
  CHECK(best <= 1.0);
  // The evaluation record holds it beside the built-in one.
  CHECK_THAT(test::read_text(run + "/metrics.jsonl"), Catch::Contains("\"example_balanced_accuracy\":"));
}

TEST_CASE("a recipe naming a plugin's metric without loading the plugin is refused", "[plugin]") {
  std::string dir = test::tmp_dir("plugin_metric_missing");
  std::string recipe = write_metric_recipe(dir);
  std::string text = test::read_text(recipe);
  std::ofstream(recipe, std::ios::trunc) << text.substr(text.find('\n') + 1);  // without the plugins line
  auto v = test::run_command(test::runner_exe() + " validate " + recipe);
  INFO(v.out);
  CHECK(v.exit_code == 2);
  CHECK_THAT(v.out, Catch::Contains("unknown metric \"example_balanced_accuracy\"") &&
                        Catch::Contains("load a plugin that registers it"));
}

TEST_CASE("a plugin's dataset gets validate's metric check through check_dataset_metrics", "[plugin]") {
  std::string dir = test::tmp_dir("plugin_dataset_best");
  std::filesystem::create_directories(dir + "/data");
  std::ofstream(dir + "/r.toml") << "plugins = [\"" << plugin_path("example_dataset") << "\"]\n"
                                 << "[data]\ndataset = \"example/labelled_lines\"\ndir = \"" << dir << "/data\"\n"
                                 << "[model]\npreset = \"bert-tiny\"\n[train]\nmetric_for_best = \"eval.f1\"\n";
  auto v = test::run_command(test::runner_exe() + " validate " + dir + "/r.toml");
  INFO(v.out);
  CHECK(v.exit_code == 2);
  // The dataset computes accuracy alone, and its metrics are not a recipe option.
  CHECK_THAT(v.out, Catch::Contains("r.toml:8:") &&
                        Catch::Contains("metric_for_best = \"eval.f1\" is not computed: the evaluation gives "
                                        "eval.loss, eval.accuracy") &&
                        Catch::Contains("hint: set metric_for_best to one of those"));
}
