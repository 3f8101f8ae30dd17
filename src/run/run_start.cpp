#include "run/run_start.h"

#include "parallel/worker_env.h"
#include "run/recipe_copies.h"
#include "run/resume_plan.h"
#include "run/run_lock.h"
#include "run/run_parallel.h"
#include "run/run_search.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <filesystem>
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
  copy_given_recipe(recipe, paths);
  write_resolved_recipe(recipe, paths);
  // Absolute, as `runner resume` makes it: every path the run records (checkpoints)
  // reads the same before and after a resume.
  return {RunChoice::Kind::New, fs::absolute(paths.dir).lexically_normal().string()};
}

}  // namespace

// The new directory is announced once every rank has agreed on it, with its
// recipe copies already written.
RunStart choose_run(const Recipe& recipe, const RunOptions& options, const RunSettings& run,
                    DistContext* dist) {
  const LaunchAttempt attempt = launch_attempt_from_process();
  RunStart start;
  if (is_primary(dist)) {
    start.choice = choose_run_dir(recipe, options, run, attempt, start.created_output_dir);
    if (!attempt.run_dir_note.empty()) write_run_dir_note(attempt.run_dir_note, start.choice.dir);
  }
  start.choice = agree_on_run_choice(dist, start.choice);
  if (is_primary(dist) && !start.choice.resuming()) announce_run_dir("run directory: ", start.choice.dir);
  return start;
}

// The resume plan is made before the run directory changes: a refused resume
// leaves it as it was.
int resume_session(const Recipe& recipe, SessionStart start) {
  const bool primary = is_primary(start.dist.get());
  if (primary) own_run_dir(start.paths.dir);  // before anything is read to be changed
  start.resume = std::make_shared<ResumePlan>(
      plan_resume({recipe, start.settings, start.paths, start.dist.get(), start.allow_changes}));
  if (primary) {
    write_resolved_recipe(recipe, start.paths);
    announce_run_dir("resuming ", start.paths.dir);
  }
  return run_session(recipe, std::move(start));
}

}  // namespace runner
