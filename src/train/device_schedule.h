// The learning rates of the next steps as a table on the device, indexed by a
// count, also on the device, of the steps applied since the table was made. A
// step skipped for a non-finite loss or gradient (known only on the device)
// does not advance the schedule, and no step reads anything back: the step
// folds the count into its host scheduler step and refills the table whenever
// it settles (train/train_step.h), at least every `capacity` steps.
#pragma once

#include "optim/scheduler.h"

#include <torch/torch.h>

namespace runner {

class DeviceSchedule {
 public:
  DeviceSchedule() = default;
  DeviceSchedule(LrMultiplier multiplier, double base_lr) : multiplier_(std::move(multiplier)), base_lr_(base_lr) {}

  // Rates for scheduler steps first .. first + capacity, the count back at 0.
  void refill(long long first, long long capacity, const torch::Device& device);
  // 0-d float64: the rate of the step about to be applied.
  torch::Tensor lr() const;
  // One step taken: the count advances unless `skip` (a 0-d bool, or undefined) is true.
  void advance(const torch::Tensor& skip);
  // 0-d int64: steps applied since the refill (read when the step settles).
  const torch::Tensor& applied() const { return applied_; }
  // The host's rate for scheduler step `step` (what the table holds).
  double host_lr(long long step) const { return base_lr_ * multiplier_(step); }

 private:
  LrMultiplier multiplier_;
  double base_lr_ = 0.0;
  torch::Tensor table_;    // [capacity + 1] float64
  torch::Tensor applied_;  // 0-d int64
};

}  // namespace runner
