// How a run splits its global batch: workers x per-worker batch x accumulated
// micro-batches. A checkpoint may continue under another split of the same
// global batch, because the sampler deals the global order out in steps of
// exactly that many examples whatever the split (see batch_topology.cpp).
// Torch-free.
#pragma once

#include "util/diagnostic.h"

#include <optional>
#include <string>

namespace runner {

struct BatchTopology {
  long long world = 1;       // worker processes
  long long rank_batch = 1;  // data.train_batch_size, per worker
  long long grad_accum = 1;  // train.grad_accum
  long long global_batch() const { return world * rank_batch * grad_accum; }
  bool operator==(const BatchTopology& o) const {
    return world == o.world && rank_batch == o.rank_batch && grad_accum == o.grad_accum;
  }
  std::string str() const;  // "2 worker(s) x batch 8 x grad_accum 1 = 16 examples per step"
};

// A checkpoint's place under this run's split of the global batch: the split
// that wrote it, this run's, and its position in the epoch converted to this
// run's. Checked and converted once per run by the resume plan
// (run/resume_plan.h); the trainer restores from it.
struct ResumePosition {
  BatchTopology then, now;
  long long batch_in_epoch = 0;  // under `now`
};

// Null when a checkpoint written under `then` can continue under `now` (the
// same global batch); otherwise the error, whose hint names the settings that
// keep the global batch on `now`'s worker count.
std::optional<Diagnostic> topology_change_error(const BatchTopology& then, const BatchTopology& now);

// The micro-batch index in the epoch under `now` that continues from
// `batch_in_epoch` under `then`: the same count of the epoch's global order
// consumed. Throws InputError when the position is not a step boundary of `now`.
long long convert_batch_in_epoch(long long batch_in_epoch, const BatchTopology& then,
                                 const BatchTopology& now);

}  // namespace runner
