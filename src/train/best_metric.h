// The best evaluation so far and the early-stopping count: what the training
// scheduler decides from each evaluation, and what a checkpoint carries so that
// a resumed run keeps judging against the same best. Torch-free.
#pragma once

#include <string>

namespace runner {

struct BestMetricState {
  bool has_best = false;
  double value = 0.0;
  long long step = 0;
  std::string checkpoint;                // directory name of the best checkpoint
  long long evals_without_improvement = 0;  // early stopping counter
};

}  // namespace runner
