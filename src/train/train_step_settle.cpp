// The host's side of the step: the settle that reads the device back, the
// NaN policy it applies, the log line it feeds, and the step's part of a
// checkpoint.
#include "train/train_step.h"
#include "model/host_read.h"
#include "util/diagnostic.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <utility>

namespace runner {

// One read of everything the device holds since the last settle: the steps the
// schedule applied, the interval's sums, norm and rate, and each micro-batch's
// loss, whose non-finite ones are reported as train.nan_policy says.
void TrainStep::settle() {
  LogInterval& iv = interval_;
  std::vector<torch::Tensor> scalars = {schedule_.applied(), iv.loss_sum, iv.loss_steps};
  if (iv.grad_norm.defined()) scalars.push_back(iv.grad_norm);
  if (iv.lr.defined()) scalars.push_back(iv.lr);
  const size_t first_loss = scalars.size();
  for (const auto& m : pending_) scalars.push_back(m.loss);
  const std::vector<double> v = read_doubles(scalars);
  state_.scheduler_step += static_cast<long long>(v[0]);
  schedule_.refill(state_.scheduler_step, scheduler_.settle_capacity(), device_);
  unsettled_steps_ = 0;
  size_t i = 1;
  iv.settled.loss_sum = v[i++];
  iv.settled.loss_steps = v[i++];
  if (iv.grad_norm.defined()) iv.settled.grad_norm = v[i++];
  if (iv.lr.defined()) iv.settled.lr = v[i++];
  std::vector<PendingLoss> pending = std::exchange(pending_, {});
  for (size_t k = 0; k < pending.size(); ++k)
    if (!std::isfinite(v[first_loss + k])) report_bad_loss(pending[k], v[first_loss + k]);
}

// A micro-batch whose loss was not finite, found when the trainer settles.
void TrainStep::report_bad_loss(const PendingLoss& m, double loss) {
  if (config_.nan_policy == NanPolicy::Skip) {
    events_.emit({{"event", "nan_skip"}, {"step", m.step}, {"example_ids", m.examples}});
    return;
  }
  std::string what = fmt::format("the loss is {} at optimizer step {} (epoch {}, micro-batch {}); "
                                 "examples: {}",
                                 loss, m.step, m.epoch, m.micro_batch, fmt::join(m.examples, ", "));
  if (!parallel_) throw nan_abort_error(what);
  if (nan_abort_.empty()) nan_abort_ = what;  // raised in optimizer_step, on every rank
}

InputError TrainStep::nan_abort_error(const std::string& what) const {
  return InputError(make_error({}, "train.nan_policy", what,
                               "lower optimizer.lr, check these examples, or set "
                               "train.nan_policy = \"skip\""));
}

// Every rank raises it once the ranks have agreed that a window had a NaN loss:
// the rank that saw it names the examples, the others point to that rank.
void TrainStep::throw_nan_abort() {
  std::string mine = std::exchange(nan_abort_, {});
  if (!mine.empty()) throw nan_abort_error(mine);
  throw nan_abort_error(fmt::format("the loss is not finite on another rank at optimizer step {} "
                                    "(epoch {}); that rank's error names the examples",
                                    state_.global_step + 1, state_.epoch));
}

// The rates are of training alone: the interval's evaluations and checkpoint
// writes are left out, so that they do not dip at every evaluation.
nlohmann::json TrainStep::take_log_event(long long total_steps) {
  LogInterval& iv = interval_;
  const double seconds = iv.trained_seconds(std::chrono::steady_clock::now());
  // Under data parallelism every rank sees an equal share of each step's examples.
  nlohmann::json e = {{"event", "train"},
                      {"step", state_.global_step},
                      {"total_steps", total_steps},
                      {"epoch", state_.epoch},
                      {"lr", iv.settled.lr},
                      {"samples_per_s", seconds > 0 ? world() * iv.samples / seconds : 0.0},
                      {"tokens_per_s", seconds > 0 ? iv.tokens / seconds : 0.0},
                      {"effective_batch", iv.steps > 0 ? world() * iv.samples / iv.steps : 0}};
  if (iv.settled.loss_steps > 0) e["loss"] = iv.settled.loss_sum / iv.settled.loss_steps;
  if (iv.settled.grad_norm) e["grad_norm"] = *iv.settled.grad_norm;
  if (scaler_.enabled()) {
    LossScalerState scaler = scaler_.state();
    e["loss_scale"] = scaler.scale;
    e["skipped_steps"] = scaler.skipped_steps;
  }
  interval_ = LogInterval(device_);
  return e;
}

// The tensors as they are, not copied: the caller copies what it keeps.
void TrainStep::capture(TrainingState& s) const {
  s.optimizer = parallel_ ? parallel_->full_optimizer_state(optimizer_->state()) : optimizer_->state();
  s.loss_scaler = scaler_.state();
  s.pending_log = interval_.record();
}

void TrainStep::restore(const TrainingState& s, const BatchTopology& then, const BatchTopology& now) {
  optimizer_->load_state(parallel_ ? parallel_->local_optimizer_state(s.optimizer) : s.optimizer);
  scaler_.load_state(s.loss_scaler);
  interval_.restore(s.pending_log, then, now);
  schedule_.refill(state_.scheduler_step, scheduler_.settle_capacity(), device_);
}

}  // namespace runner
