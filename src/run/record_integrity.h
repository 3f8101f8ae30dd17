// The run's records as its own: each a regular file before a resume touches
// it, and final/ sealed with a manifest of sha256 sums. Free of LibTorch.
#pragma once

#include "run/run_dir.h"

#include <string>

namespace runner {

// Before a resume reads or appends to a run's own records (summary.json,
// recipe.resolved.json, env.json, metrics.jsonl, train.log): each that exists
// is a regular file of its own. A directory would fail half-way through the
// rewrites, a FIFO would block the read or the append forever, and a symbolic
// link would send the appends elsewhere; throws InputError naming the first.
void require_own_records(const RunPaths& paths);

// <dir>/manifest.json listing each file of `dir` with its size and sha256, in
// a checkpoint's format (train/checkpoint_io.h, verify_checkpoint checks it):
// final/ gets one, so that a weight file changed after the run is refused.
void write_folder_manifest(const std::string& dir);

}  // namespace runner
