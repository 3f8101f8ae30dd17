// The entry points of `runner run` and `runner resume`, each a short sequence:
// the recipe's settings decoded once, what the run needs checked, the workers
// joined, where the session starts (run/run_start.h), and the session
// (run/training_session.h).
#include "run/run_training.h"

#include "run/env_record.h"
#include "run/record_integrity.h"
#include "run/run_parallel.h"
#include "run/run_start.h"
#include "run/run_summary.h"
#include "run/runnable_checks.h"
#include "run/session_settings.h"
#include "util/diagnostic.h"
#include "util/json_input.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>

namespace fs = std::filesystem;

namespace runner {
namespace {

// A run that completed its schedule has nothing to resume: it is said and the
// run is left as it is (a requeued job may resume it again). A --set or an
// --allow-changes asks for another schedule (more epochs) and goes ahead.
bool nothing_to_resume(const RunPaths& paths, const ResumeOptions& options) {
  if (!options.overrides.empty() || !options.allow_changes.empty()) return false;
  std::optional<RunSummary> summary = read_run_summary_if_readable(paths);
  // An edited status would otherwise read as "not completed" and train again.
  if (summary && summary->status_not_a_string)
    throw InputError(make_error(SourceLocation{summary->path, 0, 0, {}}, "status",
                                "expected the run's status as a string (\"running\", \"completed\", ...), found " +
                                    summary->record["status"].dump() + "; nothing in the run was changed",
                                "put back the summary.json the run wrote, or start a new run"));
  if (!summary || !summary->completed()) return false;
  // A run bounded by max_steps ignores epochs: only a larger max_steps lengthens it.
  std::ifstream recipe_in(paths.recipe_resolved());
  nlohmann::json resolved = nlohmann::json::parse(recipe_in, nullptr, false);
  const bool by_steps = resolved.is_object() && record_integer(resolved.value("train", nlohmann::json()), "max_steps") > 0;
  const std::string key = by_steps ? "train.max_steps" : "train.epochs";
  std::cerr << fmt::format(
      "{} completed all {} steps: nothing to resume, nothing changed. To train it longer, give the new "
      "schedule: runner resume {} --set {}=N --allow-changes {}\n",
      paths.dir, record_integer(summary->record, "global_step"), paths.dir, key, key);
  return true;
}

}  // namespace

// Under data parallelism rank 0 decides the run directory and whether it
// continues one, and every rank follows (whatever its own flags say).
int run_recipe(const Recipe& recipe, const RunOptions& options) {
  SessionSettings settings = decode_settings(recipe);
  require_runnable(recipe, settings);
  std::shared_ptr<DistContext> dist = join_workers(recipe, settings.run);
  const RunStart start = choose_run(recipe, options, settings.run, dist.get());
  SessionStart s{RunPaths{start.choice.dir, start.created_output_dir}, start.choice.resuming(),
                 RecipeOrigin{fs::absolute(recipe.path).string(), options.overrides}, options.command_line,
                 start.choice.resuming() ? options.allow_changes : std::vector<std::string>{}, dist,
                 std::move(settings), nullptr, options.stop_at_step,
                 options.stop_at_epoch};
  return start.choice.resuming() ? resume_session(recipe, std::move(s)) : run_session(recipe, std::move(s));
}

int resume_run(const ResumeOptions& options) {
  RunPaths paths{fs::absolute(options.run_dir).lexically_normal().string()};
  if (!paths.dir.empty() && paths.dir.back() == '/') paths.dir.pop_back();
  require_own_records(paths);  // nothing_to_resume reads two of them
  if (nothing_to_resume(paths, options)) return 0;
  RecipeOrigin origin = origin_from_env(read_env_record(paths).record, paths.env());
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
  SessionSettings settings = decode_settings(*load.recipe);
  require_runnable(*load.recipe, settings);
  std::shared_ptr<DistContext> dist = join_workers(*load.recipe, settings.run);
  SessionStart s{paths, true, origin, options.command_line, options.allow_changes, dist, std::move(settings), nullptr};
  return resume_session(*load.recipe, std::move(s));
}

}  // namespace runner
