// Where a session starts. Rank 0 chooses the run directory: the one a restart
// by `runner launch` noted, the newest unfinished run with --resume auto, or a
// new one. Every rank then follows that choice. A resume is planned
// (run/resume_plan.h) before it touches the directory.
#pragma once

#include "recipe/recipe.h"
#include "run/run_choice.h"
#include "run/run_options.h"
#include "run/run_training.h"
#include "run/training_session.h"

namespace runner {

class DistContext;

struct RunStart {
  RunChoice choice;                 // the same on every rank
  bool created_output_dir = false;  // rank 0 made run.output_dir itself
};

// Rank 0's choice of run directory, agreed by every rank. A new directory is
// made, locked, and given the recipe's copies before it is announced.
RunStart choose_run(const Recipe& recipe, const RunOptions& options, const RunSettings& run,
                    DistContext* dist);

// Plans the resume of start.paths, then runs the session from the plan. A
// refused plan leaves the run directory as it was.
int resume_session(const Recipe& recipe, SessionStart start);

}  // namespace runner
