// Dynamic loss scaling for fp16 with torch.cuda.amp.GradScaler semantics: the loss
// is multiplied by `scale` before backward, gradients are unscaled before
// clipping, a step whose gradients hold inf/NaN is skipped and halves the scale,
// and `growth_interval` clean steps in a row double it. Disabled, it is the
// identity and never skips.
//
// As GradScaler keeps them, the scale, the growth count and the found-inf flag
// live on the gradients' device and are updated there: a step never waits for
// the host. state() reads them back (a log line, a checkpoint).
#pragma once

#include "optim/optimizer.h"

namespace runner {

struct LossScalerState {
  double scale = 65536.0;
  long long growth_tracker = 0;  // clean steps since the last change of scale
  long long skipped_steps = 0;   // total steps skipped for inf/NaN gradients
};

class LossScaler {
 public:
  LossScaler(bool enabled, double init_scale, long long growth_interval,
             double growth_factor = 2.0, double backoff_factor = 0.5);

  bool enabled() const { return enabled_; }
  torch::Tensor scale_loss(const torch::Tensor& loss);
  // Multiplies every gradient by 1/scale; returns a 0-d bool on their device,
  // true when any gradient holds a non-finite value (then the step is skipped).
  // Disabled: an undefined tensor (nothing found).
  torch::Tensor unscale(const std::vector<NamedParameter>& params);
  // After each optimizer window: backoff when `found_inf` (a 0-d bool), else
  // count towards growth.
  void update(const torch::Tensor& found_inf);

  LossScalerState state() const;  // one host read
  void load_state(const LossScalerState& s);

 private:
  void place_on(const torch::Device& device);

  bool enabled_;
  long long growth_interval_;
  double growth_factor_, backoff_factor_;
  // float32 as GradScaler's _scale; the counts as float64 (exact to 2^53).
  torch::Tensor scale_, growth_tracker_, skipped_steps_;
};

}  // namespace runner
