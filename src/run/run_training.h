// `runner run RECIPE` and `runner resume RUN_DIR`: a whole training run, from a
// resolved recipe to a run directory with checkpoints, logs, the final model and
// summary.json. Free of LibTorch so that the CLI can call it from anywhere.
//
// Exit codes: 0 completed (or stopped early), 1 failed, 2 bad input (recipe,
// data row, checkpoint, NaN loss under nan_policy = "abort", a resume whose
// recipe or data changed), 130/143 interrupted by SIGINT/SIGTERM after a
// checkpoint.
//
// Test hooks read from the environment: run/test_hooks.h.
#pragma once

#include "recipe/recipe.h"

#include <string>
#include <vector>

namespace runner {

struct RunOptions {
  std::vector<std::string> command_line;  // recorded in env.json
  std::vector<std::string> overrides;     // the --set values the recipe was loaded with
  // --resume auto: continue the newest unfinished run of this recipe's run name
  // (if there is none, start a new one).
  bool resume_auto = false;
  std::vector<std::string> allow_changes;  // with resume_auto
  // --stop-at-step N: end after step N with an evaluation and a checkpoint there,
  // the schedule still the recipe's whole one (0: run to the end).
  long long stop_at_step = 0;
  // --stop-at-epoch N: the same at the end of epoch N (0: run to the end).
  long long stop_at_epoch = 0;
};

// Trains the recipe in a new run directory (or resumes, see resume_auto).
int run_recipe(const Recipe& recipe, const RunOptions& options);

struct ResumeOptions {
  std::string run_dir;
  std::vector<std::string> overrides;      // --set on top of the recorded ones
  std::vector<std::string> allow_changes;  // keys (or key prefixes) allowed to differ
  std::vector<std::string> command_line;
  Capabilities caps;                       // what this build and machine offer
};

// Continues a run from its newest valid checkpoint. The recipe is loaded again
// from its recorded path with its recorded --set values; every difference from
// the run's resolved recipe, and every changed data or tokenizer file, is an
// error (exit 2, showing the diff) unless allowed.
int resume_run(const ResumeOptions& options);

}  // namespace runner
