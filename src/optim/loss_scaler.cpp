#include "optim/loss_scaler.h"
#include "model/host_read.h"

namespace runner {

LossScaler::LossScaler(bool enabled, double init_scale, long long growth_interval,
                       double growth_factor, double backoff_factor)
    : enabled_(enabled),
      growth_interval_(growth_interval),
      growth_factor_(growth_factor),
      backoff_factor_(backoff_factor) {
  load_state({enabled ? init_scale : 1.0, 0, 0});
}

void LossScaler::load_state(const LossScalerState& s) {
  const torch::Device device = scale_.defined() ? scale_.device() : torch::Device(torch::kCPU);
  scale_ = torch::full({}, s.scale, torch::TensorOptions().dtype(torch::kFloat32).device(device));
  auto count = torch::TensorOptions().dtype(torch::kFloat64).device(device);
  growth_tracker_ = torch::full({}, static_cast<double>(s.growth_tracker), count);
  skipped_steps_ = torch::full({}, static_cast<double>(s.skipped_steps), count);
}

// The state follows the tensors it scales, the first time it meets them.
void LossScaler::place_on(const torch::Device& device) {
  if (scale_.device() == device) return;
  scale_ = scale_.to(device);
  growth_tracker_ = growth_tracker_.to(device);
  skipped_steps_ = skipped_steps_.to(device);
}

LossScalerState LossScaler::state() const {
  std::vector<double> v = read_doubles({scale_, growth_tracker_, skipped_steps_});
  return {v[0], static_cast<long long>(v[1]), static_cast<long long>(v[2])};
}

torch::Tensor LossScaler::scale_loss(const torch::Tensor& loss) {
  if (!enabled_) return loss;
  place_on(loss.device());
  return loss * scale_;
}

torch::Tensor LossScaler::unscale(const std::vector<NamedParameter>& params) {
  if (!enabled_) return {};
  torch::NoGradGuard no_grad;
  torch::Tensor found, inv_scale;
  for (const auto& p : params) {
    torch::Tensor g = p.tensor.grad();
    if (!g.defined()) continue;
    if (!inv_scale.defined()) {
      place_on(g.device());
      // GradScaler computes the inverse in double and applies it in float32.
      inv_scale = scale_.to(torch::kFloat64).reciprocal().to(torch::kFloat32);
    }
    torch::Tensor bad = g.isfinite().logical_not().any();
    found = found.defined() ? found.logical_or_(bad) : bad;
    g.mul_(inv_scale);
  }
  return found;
}

void LossScaler::update(const torch::Tensor& found_inf) {
  if (!enabled_) return;
  const torch::Tensor found =
      found_inf.defined() ? found_inf : torch::zeros({}, scale_.options().dtype(torch::kBool));
  place_on(found.device());
  const torch::Tensor grown = growth_tracker_ + 1;
  const torch::Tensor grow = grown.ge(static_cast<double>(growth_interval_));
  // Backoff on a skip; growth (and a restarted count) after growth_interval clean
  // steps. In place: a captured step (train/step_graphs.h) keeps these addresses.
  scale_.copy_(torch::where(found, scale_ * backoff_factor_,
                            torch::where(grow, scale_ * growth_factor_, scale_)));
  growth_tracker_.copy_(torch::where(found.logical_or(grow), torch::zeros_like(grown), grown));
  skipped_steps_.add_(found.to(torch::kFloat64));
}

}  // namespace runner
