// Dynamic loss scaling for fp16 with torch.cuda.amp.GradScaler semantics: the loss
// is multiplied by `scale` before backward, gradients are unscaled before
// clipping, a step whose gradients hold inf/NaN is skipped and halves the scale,
// and `growth_interval` clean steps in a row double it. Disabled, it is the
// identity and never skips.
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
  torch::Tensor scale_loss(const torch::Tensor& loss) const;
  // Multiplies every gradient by 1/scale; returns true when any gradient holds a
  // non-finite value (then the caller skips the optimizer and scheduler step).
  bool unscale(const std::vector<NamedParameter>& params);
  // After each optimizer window: backoff on inf/NaN, else count towards growth.
  void update(bool found_inf);

  const LossScalerState& state() const { return state_; }
  void load_state(const LossScalerState& s) { state_ = s; }

 private:
  bool enabled_;
  long long growth_interval_;
  double growth_factor_, backoff_factor_;
  LossScalerState state_;
};

}  // namespace runner
