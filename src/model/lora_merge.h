// What `runner export --merge` checks before it writes: the merged model's
// logits on a fixed batch against the adapter model's.
#pragma once

#include "model/model.h"

#include <functional>

namespace runner {

struct MergeCheck {
  double difference = 0;  // the largest |merged - adapter| logit on the batch
  double bound = 0;       // what fp32 rounding allows (lora_merge.cpp derives it)
  bool passed() const { return difference <= bound; }
};

// Runs `adapted` on a fixed batch, applies `merge` to it (merge_lora, or a
// test's stand-in), runs it again and compares. The model is left merged.
MergeCheck merge_and_compare(TaskModel& adapted, const std::function<void(TaskModel&)>& merge);

}  // namespace runner
