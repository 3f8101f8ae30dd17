// A plugin built from tests/plugins/ registers a scheduler that a recipe then uses.
#include <catch2/catch.hpp>

#include "shared.h"

#include "optim/scheduler.h"
#include "recipe/recipe.h"

#include <cmath>
#include <fstream>

using namespace runner;

namespace {

std::string plugin_path(const std::string& name) {
  return test::build_dir() + "/tests/plugins/lib" + name + ".so";
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

TEST_CASE("a plugin registers a scheduler that a recipe selects", "[plugin]") {
  std::string recipe = write_recipe("plugin_ok", "example_scheduler",
                                    "type = \"inverse_sqrt\"\ntimescale = 4\nwarmup_steps = 2\n");
  auto v = test::run_command(test::runner_exe() + " validate " + recipe);
  INFO(v.out);
  CHECK(v.exit_code == 0);
  auto listed = test::run_command(test::runner_exe() + " plugins " + recipe);
  CHECK_THAT(listed.out, Catch::Contains("inverse_sqrt") &&
                             Catch::Contains(plugin_path("example_scheduler")));

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
