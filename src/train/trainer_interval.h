// Private to the trainer: running sums between two log events. Tensors stay on
// the device so that no step waits for the host; they are read only when a log
// line is written or a checkpoint taken.
#pragma once

#include "train/trainer.h"

namespace runner {

struct Trainer::Interval {
  torch::Tensor loss_sum = torch::zeros({}, torch::kFloat64);
  torch::Tensor grad_norm;  // pre-clip norm of the last step
  long long steps = 0, samples = 0, tokens = 0;
  double lr = 0.0;
  std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now();
};

}  // namespace runner
