#include "optim/loss_scaler.h"

namespace runner {

LossScaler::LossScaler(bool enabled, double init_scale, long long growth_interval,
                       double growth_factor, double backoff_factor)
    : enabled_(enabled),
      growth_interval_(growth_interval),
      growth_factor_(growth_factor),
      backoff_factor_(backoff_factor) {
  state_.scale = enabled ? init_scale : 1.0;
}

torch::Tensor LossScaler::scale_loss(const torch::Tensor& loss) const {
  return enabled_ ? loss * state_.scale : loss;
}

bool LossScaler::unscale(const std::vector<NamedParameter>& params) {
  if (!enabled_) return false;
  torch::NoGradGuard no_grad;
  // GradScaler computes the inverse in double and applies it in float32.
  double inv_scale = static_cast<double>(static_cast<float>(1.0 / state_.scale));
  torch::Tensor found;  // on the gradients' device: one host read per step, at the end
  for (const auto& p : params) {
    torch::Tensor g = p.tensor.grad();
    if (!g.defined()) continue;
    torch::Tensor bad = g.isfinite().logical_not().any();
    found = found.defined() ? found.logical_or_(bad) : bad;
    g.mul_(inv_scale);
  }
  return found.defined() && found.item<bool>();
}

void LossScaler::update(bool found_inf) {
  if (!enabled_) return;
  if (found_inf) {
    state_.scale *= backoff_factor_;
    state_.growth_tracker = 0;
    ++state_.skipped_steps;
    return;
  }
  if (++state_.growth_tracker == growth_interval_) {
    state_.scale *= growth_factor_;
    state_.growth_tracker = 0;
  }
}

}  // namespace runner
