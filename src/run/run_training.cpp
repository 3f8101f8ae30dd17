// The entry points of `runner run` and `runner resume`: which run directory a
// session trains in (also after `runner launch` restarted the workers), and the
// checks before a resume touches it. The session itself is run/training_session.h.
#include "run/run_training.h"

#include "run/mlflow_logger.h"

#include "data/data_options.h"
#include "parallel/worker_env.h"
#include "run/run_data.h"
#include "run/run_options.h"
#include "run/run_parallel.h"
#include "run/run_lock.h"
#include "run/run_records.h"
#include "run/training_session.h"
#include "train/batch_topology.h"
#include "train/training_state.h"
#include "util/diagnostic.h"
#include "util/utf8.h"
#include "util/json_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace runner {
namespace {

// The settings that split the global batch. A resume checks them against the
// checkpoint (train/batch_topology.h) instead of requiring them unchanged.
const char* const kBatchSplitKeys[] = {"topology.processes_per_node", "topology.nodes",
                                       "data.train_batch_size", "train.grad_accum"};

bool splits_batch(const RunChange& c) {
  for (const char* k : kBatchSplitKeys)
    if (c.key == k) return true;
  return false;
}

// The split the checkpoint was written under, from its state.json; checkpoints
// older than its batch size and accumulation fields ran the recorded recipe's.
BatchTopology checkpoint_topology(const std::string& checkpoint, const nlohmann::json& recorded) {
  const nlohmann::json state = read_json_file(checkpoint + "/state.json");
  const nlohmann::json sampler = record_object(state, "sampler");
  BatchTopology t;
  t.world = record_integer(state, "world_size", 1);
  t.rank_batch = record_integer(sampler, "batch_size",
                                recorded.value(nlohmann::json::json_pointer("/data/train_batch_size"), 1LL));
  t.grad_accum = record_integer(state, "grad_accum", 0);
  if (t.grad_accum <= 0) t.grad_accum = recorded.value(nlohmann::json::json_pointer("/train/grad_accum"), 1LL);
  return t;
}

BatchTopology session_topology(const Recipe& recipe, const DistContext* dist) {
  return {dist ? dist->world_size() : 1, recipe.section("data").at("train_batch_size").get<long long>(),
          recipe.section("train").at("grad_accum").get<long long>()};
}

// Before a resume touches the run directory: the resolved recipe and the
// content of the data and tokenizer files must be what the run started with,
// except for another split of the same global batch.
void check_resume_allowed(const Recipe& recipe, SessionStart& start) {
  const nlohmann::json recorded = read_json_file(start.paths.recipe_resolved());
  std::vector<RunChange> changes = recipe_changes(recorded, nlohmann::json(recipe.resolved));
  start.resume_point = find_resume_point(start.paths);
  if (!start.resume_point->checkpoint.empty()) {
    start.resume_state = std::make_shared<const TrainingState>(load_training_state(start.resume_point->checkpoint));
    BatchTopology then = checkpoint_topology(start.resume_point->checkpoint, recorded);
    BatchTopology now = session_topology(recipe, start.dist.get());
    if (auto error = topology_change_error(then, now)) throw InputError(*error);
    if (!(then == now) && is_primary(start.dist.get()))
      std::cerr << fmt::format("resuming the checkpoint of {} as {}\n", then.str(), now.str());
  }
  changes.erase(std::remove_if(changes.begin(), changes.end(), splits_batch), changes.end());
  RunData data = open_data(data_settings_from(recipe.section("data")), recipe.section("data"),
                           recipe.section("tokenizer"));
  nlohmann::json env = read_json_file(start.paths.env());
  for (auto& c : content_changes(env.value("content_sha256", nlohmann::json::object()),
                                 content_hashes(data_content_files(data, recipe.section("tokenizer")))))
    changes.push_back(std::move(c));
  check_changes(changes, start.allow_changes, start.paths.dir);
}

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

int resume_session(const Recipe& recipe, SessionStart start) {
  if (is_primary(start.dist.get())) own_run_dir(start.paths.dir);  // before anything is read to be changed
  require_own_records(start.paths);
  check_resume_allowed(recipe, start);
  if (!is_primary(start.dist.get())) return run_session(recipe, std::move(start));
  write_resolved_recipe(recipe, start.paths);
  announce_run_dir("resuming ", start.paths.dir);
  return run_session(recipe, std::move(start));
}

// Rank 0's choice of where the session trains, as "resume:DIR" or "new:DIR":
// after a restart by `runner launch`, the run the first attempt noted; with
// --resume auto, the newest unfinished run of the recipe's name; else a new one.
std::string choose_run_dir(const Recipe& recipe, const RunOptions& options, const RunSettings& run,
                           const LaunchAttempt& attempt, bool& created_output_dir) {
  if (attempt.restart > 0 && !attempt.run_dir_note.empty())
    if (std::string noted = read_run_dir_note(attempt.run_dir_note); !noted.empty()) {
      std::cerr << fmt::format("restart {} of at most {}: continuing {}\n", attempt.restart,
                               attempt.max_restarts, noted);
      return "resume:" + noted;
    }
  if (options.resume_auto) {
    if (std::string dir = newest_unfinished_run(run.output_dir, run.name); !dir.empty())
      return "resume:" + fs::absolute(dir).lexically_normal().string();
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
  return "new:" + fs::absolute(paths.dir).lexically_normal().string();
}

// A device that the build or this machine cannot give is refused before a
// run directory exists: LibTorch would fail at the first tensor moved there,
// after the directory was made, with a C++ backtrace for a message.
void require_device(const Recipe& recipe) {
  const RunSettings run = run_settings_from(recipe.section("run"));
  if (torch::cuda::is_available()) return;
  const bool fp16 = recipe.section("train").value("precision", std::string()) == "fp16";
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
void require_tracking_server(const Recipe& recipe) {
  const RunSettings run = run_settings_from(recipe.section("run"));
  if (std::find(run.loggers.begin(), run.loggers.end(), "mlflow") == run.loggers.end()) return;
  TrackingUriProblem problem = mlflow_tracking_uri_problem();
  if (problem.what.empty()) return;
  throw InputError(make_error(recipe.location_of("run.loggers"), "run.loggers",
                              "run.loggers has \"mlflow\", but " + problem.what + "; nothing was run",
                              problem.fix));
}

// What a run needs from the build, the machine and the environment, checked
// before a run directory exists.
void require_runnable(const Recipe& recipe) {
  require_device(recipe);
  require_tracking_server(recipe);
  heartbeat_seconds();  // an out-of-range RUNNER_HEARTBEAT_SECONDS is refused by name
}

// A run that completed its schedule has nothing to resume: it is said and the
// run is left as it is (a requeued job may resume it again). A --set or an
// --allow-changes asks for another schedule (more epochs) and goes ahead.
bool nothing_to_resume(const RunPaths& paths, const ResumeOptions& options) {
  if (!options.overrides.empty() || !options.allow_changes.empty()) return false;
  std::ifstream in(paths.summary());
  nlohmann::json summary = nlohmann::json::parse(in, nullptr, false);
  // An edited status would otherwise read as "not completed" and train again.
  if (summary.is_object() && summary.contains("status") && !summary["status"].is_string())
    throw InputError(make_error(SourceLocation{paths.summary(), 0, 0, {}}, "status",
                                "expected the run's status as a string (\"running\", \"completed\", ...), found " +
                                    summary["status"].dump() + "; nothing in the run was changed",
                                "put back the summary.json the run wrote, or start a new run"));
  if (record_string(summary, "status") != "completed") return false;
  // A run bounded by max_steps ignores epochs: only a larger max_steps lengthens it.
  std::ifstream recipe_in(paths.recipe_resolved());
  nlohmann::json resolved = nlohmann::json::parse(recipe_in, nullptr, false);
  const bool by_steps = resolved.is_object() && record_integer(resolved.value("train", nlohmann::json()), "max_steps") > 0;
  const std::string key = by_steps ? "train.max_steps" : "train.epochs";
  std::cerr << fmt::format(
      "{} completed all {} steps: nothing to resume, nothing changed. To train it longer, give the new "
      "schedule: runner resume {} --set {}=N --allow-changes {}\n",
      paths.dir, record_integer(summary, "global_step"), paths.dir, key, key);
  return true;
}

}  // namespace

// Under data parallelism rank 0 decides the run directory and whether it
// continues one, and every rank follows (whatever its own flags say).
int run_recipe(const Recipe& recipe, const RunOptions& options) {
  require_runnable(recipe);
  const RunSettings run = run_settings_from(recipe.section("run"));
  std::shared_ptr<DistContext> dist = join_workers(recipe);
  const LaunchAttempt attempt = launch_attempt_from_process();
  std::string choice;
  bool created_output_dir = false;
  if (is_primary(dist.get())) {
    choice = choose_run_dir(recipe, options, run, attempt, created_output_dir);
    if (!attempt.run_dir_note.empty()) write_run_dir_note(attempt.run_dir_note, choice.substr(choice.find(':') + 1));
  }
  choice = agree_on(dist.get(), "run_dir", choice);
  const bool resuming = choice.rfind("resume:", 0) == 0;
  SessionStart s{RunPaths{choice.substr(choice.find(':') + 1), created_output_dir}, resuming,
                 RecipeOrigin{fs::absolute(recipe.path).string(), options.overrides}, options.command_line,
                 resuming ? options.allow_changes : std::vector<std::string>{}, dist, std::nullopt};
  return resuming ? resume_session(recipe, std::move(s)) : run_session(recipe, std::move(s));
}

int resume_run(const ResumeOptions& options) {
  RunPaths paths{fs::absolute(options.run_dir).lexically_normal().string()};
  if (!paths.dir.empty() && paths.dir.back() == '/') paths.dir.pop_back();
  require_own_records(paths);  // nothing_to_resume reads two of them
  if (nothing_to_resume(paths, options)) return 0;
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
  require_runnable(*load.recipe);
  SessionStart s{paths, true, origin, options.command_line, options.allow_changes,
                 join_workers(*load.recipe), std::nullopt};
  return resume_session(*load.recipe, std::move(s));
}

}  // namespace runner
