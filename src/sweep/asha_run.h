// Running a sweep by successive halving (ASHA): whenever a job slot frees,
// the search promotes a point whose rung ranks it in the top 1/eta (sweep/asha.h),
// else starts the next point at the bottom rung. Every point's run has
// train.max_steps = max_budget (its learning-rate schedule is the whole run's)
// and stops at its rung's step with `runner run --stop-at-step`; a promoted
// point continues the same run directory from that checkpoint, so that it ends
// bitwise equal to the point trained in one go. The ledger keeps each point's
// rung and metrics after every change, so a sweep started again goes on.
#pragma once

#include "sweep/expand.h"
#include "sweep/ledger.h"
#include "sweep/sweep_run.h"

#include <iosfwd>
#include <vector>

namespace runner {

// Runs the search over `points` (an invalid point, one with errors in
// `checks`, is marked failed and never started); returns the stop signal that
// ended it, 0 when none.
int run_asha(const SweepFile& sweep, const std::vector<SweepPoint>& points, const std::vector<Diagnostics>& checks,
             const SweepRunOptions& options, Ledger& ledger, std::ostream& out);

// The evaluation event of a point's newest run at optimizer step `step` (the
// last one when a resume repeated it); null when there is none.
nlohmann::json eval_at_step(const SweepFile& sweep, const std::string& point_id, long long step);

}  // namespace runner
