// The entry points of `runner run` and `runner resume`: which run directory a
// session trains in, and the checks before a resume touches it. The session
// itself is run/training_session.h.
#include "run/run_training.h"

#include "data/data_options.h"
#include "run/run_data.h"
#include "run/run_options.h"
#include "run/run_parallel.h"
#include "run/run_records.h"
#include "run/training_session.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

namespace fs = std::filesystem;

namespace runner {
namespace {

// Before a resume touches the run directory: the resolved recipe and the
// content of the data and tokenizer files must be what the run started with.
void check_resume_allowed(const Recipe& recipe, const RunPaths& paths,
                          const std::vector<std::string>& allowed) {
  std::vector<RunChange> changes = recipe_changes(read_json_file(paths.recipe_resolved()),
                                                  nlohmann::json(recipe.resolved));
  RunData data = open_data(data_settings_from(recipe.section("data")), recipe.section("data"),
                           recipe.section("tokenizer"));
  nlohmann::json env = read_json_file(paths.env());
  for (auto& c : content_changes(env.value("content_sha256", nlohmann::json::object()),
                                 content_hashes(data_content_files(data, recipe.section("tokenizer")))))
    changes.push_back(std::move(c));
  check_changes(changes, allowed, paths.dir);
}

int resume_session(const Recipe& recipe, const SessionStart& start) {
  check_resume_allowed(recipe, start.paths, start.allow_changes);
  if (!is_primary(start.dist.get())) return run_session(recipe, start);
  write_resolved_recipe(recipe, start.paths);
  std::cerr << fmt::format("resuming {}\n", start.paths.dir);
  return run_session(recipe, start);
}

}  // namespace

// Under data parallelism rank 0 decides the run directory and every rank is told it.
int run_recipe(const Recipe& recipe, const RunOptions& options) {
  const RunSettings run = run_settings_from(recipe.section("run"));
  const std::string& name = run.name;
  std::shared_ptr<DistContext> dist = join_workers(recipe);
  const bool primary = is_primary(dist.get());
  RecipeOrigin origin{fs::absolute(recipe.path).string(), options.overrides};
  if (options.resume_auto) {
    std::string dir = primary ? newest_unfinished_run(run.output_dir, name) : std::string();
    dir = agree_on(dist.get(), "resume_dir", dir);
    if (!dir.empty()) {
      SessionStart s{RunPaths{dir}, true, origin, options.command_line, options.allow_changes};
      s.dist = dist;
      return resume_session(recipe, s);
    }
    if (primary)
      std::cerr << fmt::format("no unfinished run of '{}' under {}; starting a new one\n", name,
                               run.output_dir);
  }
  RunPaths paths;
  if (primary) {
    paths = create_run_dir(run.output_dir, name);
    std::cerr << fmt::format("run directory: {}\n", paths.dir);
    copy_given_recipe(recipe, paths);
    write_resolved_recipe(recipe, paths);
  }
  paths.dir = agree_on(dist.get(), "run_dir", paths.dir);
  SessionStart s{paths, false, origin, options.command_line, {}};
  s.dist = dist;
  return run_session(recipe, s);
}

int resume_run(const ResumeOptions& options) {
  RunPaths paths{fs::absolute(options.run_dir).lexically_normal().string()};
  if (!paths.dir.empty() && paths.dir.back() == '/') paths.dir.pop_back();
  nlohmann::json env = read_json_file(paths.env());
  RecipeOrigin origin = origin_from_env(env, paths.env());
  origin.overrides.insert(origin.overrides.end(), options.overrides.begin(), options.overrides.end());
  if (!fs::exists(origin.path)) {
    std::string copy = paths.recipe_as_given() + fs::path(origin.path).extension().string();
    std::cerr << fmt::format("warning: the recipe {} is gone; resuming with the copy {}\n",
                             origin.path, copy);
    origin.path = copy;
  }
  RecipeRequest request{origin.path, origin.overrides, true, options.caps};
  RecipeLoad load = load_recipe(request, registry());
  std::cerr << format_all(load.diags);
  if (!load.recipe) return 2;
  SessionStart s{paths, true, origin, options.command_line, options.allow_changes};
  s.dist = join_workers(*load.recipe);
  return resume_session(*load.recipe, s);
}

}  // namespace runner
