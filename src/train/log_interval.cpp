#include "train/log_interval.h"
#include "util/json_input.h"

namespace runner {

nlohmann::json LogInterval::record() const {
  nlohmann::json p = {{"loss_sum", settled.loss_sum}, {"loss_steps", settled.loss_steps},
                      {"steps", steps},               {"samples", samples},
                      {"tokens", tokens},             {"lr", settled.lr},
                      {"train_s", trained_seconds(step_ended)}};
  if (settled.grad_norm) p["grad_norm"] = *settled.grad_norm;
  return p;
}

// Checkpoints before "loss_steps" wrote the count of counted steps as "steps",
// a float, which reads as that count for both.
void LogInterval::restore(const nlohmann::json& p, const BatchTopology& then, const BatchTopology& now) {
  auto on_device = loss_sum.options();
  settled.loss_sum = record_number(p, "loss_sum", 0.0);
  settled.loss_steps = record_number(p, "loss_steps", record_number(p, "steps", 0.0));
  loss_sum = torch::full({}, settled.loss_sum, on_device);
  loss_steps = torch::full({}, settled.loss_steps, on_device);
  steps = record_integer(p, "steps", static_cast<long long>(settled.loss_steps));
  // Per-worker counts: the interval's share of each worker changes with their number.
  samples = record_integer(p, "samples", 0) * then.world / now.world;
  tokens = record_integer(p, "tokens", 0) * then.world / now.world;
  settled.lr = record_number(p, "lr", 0.0);
  lr = torch::full({}, settled.lr, on_device);
  carried_s = record_number(p, "train_s", 0.0);
  if (p.contains("grad_norm") && p["grad_norm"].is_number()) {
    settled.grad_norm = p["grad_norm"].get<double>();
    grad_norm = torch::full({}, *settled.grad_norm, on_device);
  }
}

}  // namespace runner
