// The entry points of `runner run` and `runner resume`: the recipe's settings
// decoded once, which run directory a session trains in (also after `runner
// launch` restarted the workers), and the resume plan (run/resume_plan.h)
// before a resume touches it. The session itself is run/training_session.h.
#include "run/run_training.h"

#include "parallel/worker_env.h"
#include "run/env_record.h"
#include "run/mlflow_logger.h"
#include "run/recipe_copies.h"
#include "run/record_integrity.h"
#include "run/resume_plan.h"
#include "run/run_choice.h"
#include "run/run_lock.h"
#include "run/run_parallel.h"
#include "run/run_search.h"
#include "run/run_summary.h"
#include "run/session_settings.h"
#include "run/summary_writer.h"
#include "run/training_session.h"
#include "util/diagnostic.h"
#include "util/json_input.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace runner {
namespace {

// The run directory alone goes to stdout, absolute, so that `DIR=$(runner run ...)`
// gets one that works from anywhere; everything else a run says goes to stderr.
// A terminal shows it once: said with `what` on stdout itself when that is the
// terminal, else on stderr too, for the person watching a captured run.
void announce_run_dir(const std::string& what, const std::string& dir) {
  const std::string absolute = fs::absolute(dir).lexically_normal().string();
  // Shown to a person, the name's control and bidirectional characters are escaped;
  // the bare line on a captured stdout stays the path itself, for scripts.
  if (isatty(STDOUT_FILENO)) {
    std::cout << what << terminal_safe(absolute) << std::endl;
    return;
  }
  std::cerr << what << terminal_safe(absolute) << "\n";
  std::cout << absolute << std::endl;
}

// The resume plan is made before the run directory changes: a refused resume
// leaves it as it was.
int resume_session(const Recipe& recipe, SessionStart start) {
  if (is_primary(start.dist.get())) own_run_dir(start.paths.dir);  // before anything is read to be changed
  start.resume = std::make_shared<ResumePlan>(
      plan_resume({recipe, start.settings, start.paths, start.dist.get(), start.allow_changes}));
  if (!is_primary(start.dist.get())) return run_session(recipe, std::move(start));
  write_resolved_recipe(recipe, start.paths);
  announce_run_dir("resuming ", start.paths.dir);
  return run_session(recipe, std::move(start));
}

// Rank 0's choice of where the session trains: after a restart by `runner
// launch`, the run the first attempt noted; with --resume auto, the newest
// unfinished run of the recipe's name; else a new one.
RunChoice choose_run_dir(const Recipe& recipe, const RunOptions& options, const RunSettings& run,
                         const LaunchAttempt& attempt, bool& created_output_dir) {
  if (attempt.restart > 0 && !attempt.run_dir_note.empty())
    if (std::string noted = read_run_dir_note(attempt.run_dir_note); !noted.empty()) {
      std::cerr << fmt::format("restart {} of at most {}: continuing {}\n", attempt.restart,
                               attempt.max_restarts, noted);
      return {RunChoice::Kind::Resume, noted};
    }
  if (options.resume_auto) {
    if (std::string dir = newest_unfinished_run(run.output_dir, run.name); !dir.empty())
      return {RunChoice::Kind::Resume, fs::absolute(dir).lexically_normal().string()};
    std::cerr << fmt::format("no unfinished run of '{}' under {}; starting a new one\n", run.name,
                             run.output_dir);
  }
  RunPaths paths = create_run_dir(run.output_dir, run.name);
  own_run_dir(paths.dir);  // `run --resume auto` elsewhere could pick it as unfinished
  created_output_dir = paths.created_output_dir;
  announce_run_dir("run directory: ", paths.dir);
  copy_given_recipe(recipe, paths);
  write_resolved_recipe(recipe, paths);
  // Absolute, as `runner resume` makes it: every path the run records (checkpoints)
  // reads the same before and after a resume.
  return {RunChoice::Kind::New, fs::absolute(paths.dir).lexically_normal().string()};
}

// A device that the build or this machine cannot give is refused before a
// run directory exists: LibTorch would fail at the first tensor moved there,
// after the directory was made, with a C++ backtrace for a message.
void require_device(const Recipe& recipe, const SessionSettings& settings) {
  const RunSettings& run = settings.run;
  if (torch::cuda::is_available()) return;
  const bool fp16 = settings.train.precision == Precision::Fp16;
  // run.device = "auto" falls back to the CPU, where fp16 cannot train.
  if (run.device == DeviceChoice::Auto && fp16)
    throw InputError(make_error(recipe.location_of("train.precision"), "train.precision",
                                "train.precision = \"fp16\" needs a CUDA device, and this machine has none "
                                "(run.device = \"auto\" trains on the CPU here); nothing was run",
                                "train it on a GPU machine, or set train.precision = \"fp32\" (or \"bf16\" on a "
                                "CPU with native bf16) to train here"));
  if (run.device != DeviceChoice::Cuda) return;
  const std::string why = at::hasCUDA() ? "no CUDA device is visible on this machine"
                                        : "this runner is built without CUDA (CPU-only LibTorch)";
  std::string fix = "set run.device = \"auto\" (a GPU when there is one, else the CPU) or \"cpu\"";
  if (fp16) fix += ", and train.precision = \"bf16\" (or \"fp32\") instead of \"fp16\", which needs CUDA";
  throw InputError(make_error(recipe.location_of("run.device"), "run.device",
                              "run.device = \"cuda\", but " + why + "; nothing was run", fix));
}

// The mlflow logger without a tracking server would only say so after the run
// directory exists; refused here like a missing device.
void require_tracking_server(const Recipe& recipe, const RunSettings& run) {
  if (std::find(run.loggers.begin(), run.loggers.end(), "mlflow") == run.loggers.end()) return;
  TrackingUriProblem problem = mlflow_tracking_uri_problem();
  if (problem.what.empty()) return;
  throw InputError(make_error(recipe.location_of("run.loggers"), "run.loggers",
                              "run.loggers has \"mlflow\", but " + problem.what + "; nothing was run",
                              problem.fix));
}

// What a run needs from the build, the machine and the environment, checked
// before a run directory exists.
void require_runnable(const Recipe& recipe, const SessionSettings& settings) {
  require_device(recipe, settings);
  require_tracking_server(recipe, settings.run);
  heartbeat_seconds();  // an out-of-range RUNNER_HEARTBEAT_SECONDS is refused by name
}

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
  const LaunchAttempt attempt = launch_attempt_from_process();
  RunChoice choice;
  bool created_output_dir = false;
  if (is_primary(dist.get())) {
    choice = choose_run_dir(recipe, options, settings.run, attempt, created_output_dir);
    if (!attempt.run_dir_note.empty()) write_run_dir_note(attempt.run_dir_note, choice.dir);
  }
  choice = agree_on_run_choice(dist.get(), choice);
  SessionStart s{RunPaths{choice.dir, created_output_dir}, choice.resuming(),
                 RecipeOrigin{fs::absolute(recipe.path).string(), options.overrides}, options.command_line,
                 choice.resuming() ? options.allow_changes : std::vector<std::string>{}, dist,
                 std::move(settings), nullptr};
  return choice.resuming() ? resume_session(recipe, std::move(s)) : run_session(recipe, std::move(s));
}

int resume_run(const ResumeOptions& options) {
  RunPaths paths{fs::absolute(options.run_dir).lexically_normal().string()};
  if (!paths.dir.empty() && paths.dir.back() == '/') paths.dir.pop_back();
  require_own_records(paths);  // nothing_to_resume reads two of them
  if (nothing_to_resume(paths, options)) return 0;
  nlohmann::json env = read_env_record(paths);
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
  SessionSettings settings = decode_settings(*load.recipe);
  require_runnable(*load.recipe, settings);
  std::shared_ptr<DistContext> dist = join_workers(*load.recipe, settings.run);
  SessionStart s{paths, true, origin, options.command_line, options.allow_changes, dist, std::move(settings), nullptr};
  return resume_session(*load.recipe, std::move(s));
}

}  // namespace runner
