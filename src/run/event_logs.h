// The run's event logs (metrics.jsonl, train.log) as a resume finds them:
// the time they last logged, and the steps past a checkpoint cut away. Free of LibTorch.
#pragma once

#include "run/run_dir.h"

namespace runner {

// The largest elapsed_s of metrics.jsonl's last lines (0 when none): how long the
// run's sessions have run by its events, which a session killed between two
// heartbeats outlived in summary.json.
double latest_elapsed_seconds(const RunPaths& paths);

// Drops the events of steps after `step` from metrics.jsonl and train.log, so
// that a run resumed from the checkpoint of `step` appends no duplicated steps.
void cut_event_logs(const RunPaths& paths, long long step);

}  // namespace runner
