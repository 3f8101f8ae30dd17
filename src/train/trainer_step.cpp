// The trainer's step: forward, backward and update of each window, eager or
// in a graph replay, with the device-side bookkeeping (window loss, NaN flags,
// loss scale) and the settle that reads it back.
#include "train/trainer.h"
#include "train/trainer_interval.h"
#include "train/autocast.h"
#include "optim/grad_clip.h"
#include "model/host_read.h"
#include "util/diagnostic.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <tuple>
#include <utility>

namespace runner {

namespace {

// In place, as Optimizer::zero_grad: the sharded optimizer clears only its own.
void zero_gradients(const std::vector<NamedParameter>& params) {
  for (const auto& p : params)
    if (p.tensor.grad().defined()) p.tensor.mutable_grad().zero_();
}

// zero_grad(set_to_none=True): the next backward hands each parameter its fresh
// gradient instead of adding it to zeros, which saves a fill and an add over
// every parameter (44 MB on BERT-Mini) per step. The values are the same: 0 + g == g.
void release_gradients(const std::vector<NamedParameter>& params) {
  for (const auto& p : params) p.tensor.mutable_grad().reset();
}

// LibTorch errors carry a C++ backtrace after the message.
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

// Autocast covers the forward and its loss only, entered and left per call, as
// Accelerate's prepared model enters torch.autocast per forward. Autocast caches
// the low-precision copy of every weight until its outermost region ends, and
// the optimizer's in-place update does not invalidate that cache: a region kept
// open across a step would run every later forward on stale weights. Backward
// and the optimizer step run outside it, as PyTorch's autocast docs require.
ModelOutput Trainer::forward(const ModelBatch& batch) {
  AutocastGuard autocast(config_.precision, device_.type());
  ForwardOptions options;
  options.label_smoothing = config_.label_smoothing;
  return model_->forward(batch, options);
}

// Every micro-batch runs its backward, a non-finite one too: whether a loss is
// finite is known only on the device, where a window holding one is skipped
// (optimizer_step). Under data parallelism that also keeps this rank in step
// with the others' gradient exchange.
void Trainer::micro_step(const TrainBatch& batch, long long window) {
  record_loss(forward_backward(batch.tensors, window), batch);
  count_micro_batch(batch);
}

// The device work of a micro-batch: forward, loss, backward. Returns the loss
// (float64) and whether it is not finite, both 0-d on the device.
Trainer::MicroLoss Trainer::forward_backward(const ModelBatch& batch, long long window) {
  ModelOutput out = forward(batch);
  torch::Tensor value = out.loss.detach().to(torch::kFloat64);
  MicroLoss loss{value, value.isfinite().logical_not()};
  torch::Tensor scaled = scaler_.scale_loss(out.loss / static_cast<double>(window));
  if (!parallel_) {
    scaled.backward();
    return loss;
  }
  const bool sync = window_micro_ + 1 == window;  // a window's last micro-batch
  parallel_->before_backward(scaled, sync);
  try {
    scaled.backward();
  } catch (const std::exception& e) {  // the Reducer's collective failed inside backward
    parallel_->fail("the gradient all-reduce", first_line(e.what()));
  }
  parallel_->after_backward(sync);
  return loss;
}

void Trainer::count_micro_batch(const TrainBatch& batch) {
  ++window_micro_;
  interval_->samples += batch.examples;
  interval_->tokens += batch.tokens;
  // The whole run's count: every rank's batches are the same size (the sampler
  // pads the epoch to a multiple of the world), so the world's is world x this.
  state_.samples_seen += batch.examples * (parallel_ ? parallel_->world_size() : 1);
}

// On the device: the window's loss sum leaves a non-finite loss out, and the
// window's flag remembers it. On the host: what a NaN report will name.
void Trainer::record_loss(const MicroLoss& loss, const TrainBatch& batch) {
  torch::Tensor kept = torch::where(loss.bad, torch::zeros_like(loss.value), loss.value);
  window_loss_ = window_loss_.defined() ? window_loss_ + kept : kept;
  window_bad_ = window_bad_.defined() ? window_bad_.logical_or(loss.bad) : loss.bad;
  pending_.push_back({loss.value, state_.global_step + 1, state_.epoch, state_.batch_in_epoch, batch.example_ids});
}

// One window of one micro-batch, its forward, backward and update in one CUDA
// graph replay (train/step_graphs.h); the host's bookkeeping follows as in the
// eager step. False when the batch's shape has no graph: the caller runs it eagerly.
bool Trainer::graphed_step(const TrainBatch& batch) {
  auto outputs = graphs_->run(batch.tensors, [this](const ModelBatch& inputs) {
    MicroLoss loss = forward_backward(inputs, 1);
    UpdateResult r = apply_update(skip_flag(loss.bad, scaler_.unscale(optimizer_->parameters())), false);
    return std::vector<torch::Tensor>{loss.value, loss.bad, r.skip, r.norm, r.lr};
  });
  if (!outputs) return false;
  const std::vector<torch::Tensor>& o = *outputs;  // copies: the trainer may keep them
  record_loss({o[0], o[1]}, batch);
  count_micro_batch(batch);
  finish_step({o[2], o[3], o[4]}, false);
  return true;
}

// A micro-batch whose loss was not finite, found when the trainer settles.
void Trainer::report_bad_loss(const PendingLoss& m, double loss) {
  if (config_.nan_policy == NanPolicy::Skip) {
    emit({{"event", "nan_skip"}, {"step", m.step}, {"examples", m.examples}});
    return;
  }
  std::string what = fmt::format("the loss is {} at optimizer step {} (epoch {}, micro-batch {}); "
                                 "examples: {}",
                                 loss, m.step, m.epoch, m.micro_batch, fmt::join(m.examples, ", "));
  if (!parallel_) throw nan_abort_error(what);
  if (nan_abort_.empty()) nan_abort_ = what;  // raised in optimizer_step, on every rank
}

InputError Trainer::nan_abort_error(const std::string& what) const {
  return InputError(make_error({}, "train.nan_policy", what,
                               "lower optimizer.lr, check these examples, or set "
                               "train.nan_policy = \"skip\""));
}

// Every rank raises it once the ranks have agreed that a window had a NaN loss:
// the rank that saw it names the examples, the others point to that rank.
void Trainer::throw_nan_abort() {
  std::string mine = std::exchange(nan_abort_, {});
  if (!mine.empty()) throw nan_abort_error(mine);
  throw nan_abort_error(fmt::format("the loss is not finite on another rank at optimizer step {} "
                                    "(epoch {}); that rank's error names the examples",
                                    state_.global_step + 1, state_.epoch));
}

// Nothing here reads the device without data parallelism: the skip flag, the
// learning rate, the norm and the loss sums are tensors the next kernels consume.
void Trainer::optimizer_step() {
  // Under data parallelism these are the parameters whose averaged gradients this rank holds.
  torch::Tensor bad_grad = scaler_.unscale(optimizer_->parameters());  // undefined without loss scaling
  torch::Tensor skip = skip_flag(window_bad_, bad_grad);
  bool rank_skipped = false, rank_bad_loss = false;  // agreed by the ranks on the host
  if (parallel_) {
    std::tie(rank_skipped, rank_bad_loss) = agree_on_skip(bad_grad);
    skip = torch::full({}, rank_skipped, torch::TensorOptions().dtype(torch::kBool).device(device_));
  }
  finish_step(apply_update(skip, rank_skipped), rank_bad_loss);
}

torch::Tensor Trainer::skip_flag(const torch::Tensor& window_bad, const torch::Tensor& bad_grad) {
  return bad_grad.defined() ? window_bad.logical_or(bad_grad) : window_bad;
}

// The device work of an optimizer step once its skip flag is known: clipping,
// the learning rate, the update, the schedule's and the loss scale's progress.
Trainer::UpdateResult Trainer::apply_update(const torch::Tensor& skip, bool rank_skipped) {
  const auto& params = optimizer_->parameters();
  // The norm is a pass over every gradient: taken when clipping needs it, when
  // this step's log line reports it, or always in a graph (the same kernels every
  // replay). A skipped step's NaN gradients under data parallelism have nothing to measure.
  const bool want_norm = config_.max_grad_norm > 0 || loop_.logs_at(state_.global_step + 1) || graphs_;
  UpdateResult r{skip, torch::Tensor(), schedule_.lr()};
  if (want_norm && !parallel_) r.norm = clip_grad_norm(params, config_.max_grad_norm);
  else if (want_norm && !rank_skipped) r.norm = parallel_->clip_grad_norm(config_.max_grad_norm);
  if (!rank_skipped) {
    optimizer_->step({r.lr, skip});
    if (parallel_) parallel_->after_optimizer_step();
  }
  schedule_.advance(skip);  // a skipped step does not advance the schedule
  scaler_.update(skip);
  return r;
}

// The host's side of a step, after its device work.
void Trainer::finish_step(const UpdateResult& r, bool any_rank_bad_loss) {
  // Data parallelism keeps its gradients: the gradient exchange writes into them in place.
  if (parallel_) {
    optimizer_->zero_grad();
    zero_gradients(parallel_->all_parameters());
  } else {
    release_gradients(optimizer_->parameters());
  }
  ++state_.global_step;
  ++unsettled_steps_;
  interval_->lr = r.lr;
  if (r.norm.defined()) interval_->grad_norm = r.norm;
  add_to_interval(any_rank_bad_loss);
  window_loss_ = torch::Tensor();
  window_bad_ = torch::Tensor();
  window_micro_ = 0;
}

// The ranks agree on the host whether the window is skipped (reads on each):
// every rank then skips together, and nan_policy "abort" stops them all.
// Returns {skip the step, some rank's loss was not finite}.
std::pair<bool, bool> Trainer::agree_on_skip(const torch::Tensor& bad_grad) {
  settle();  // reads this window's losses: names a NaN's examples
  const bool bad_loss = read_bool(window_bad_);
  std::vector<bool> agreed = parallel_->any_rank({bad_grad.defined() && read_bool(bad_grad), bad_loss});
  if (agreed[1] && config_.nan_policy == NanPolicy::Abort) throw_nan_abort();
  if (agreed[1] && !bad_loss)
    emit({{"event", "nan_skip"}, {"step", state_.global_step + 1}, {"on_another_rank", true}});
  return {agreed[0] || agreed[1], agreed[1]};
}

// The step's mean loss counts in the interval when every micro-batch's was finite
// (decided on the device); under data parallelism, when every rank's was.
void Trainer::add_to_interval(bool any_rank_bad_loss) {
  Interval& iv = *interval_;
  ++iv.steps;
  if (!window_loss_.defined() || any_rank_bad_loss) return;
  torch::Tensor mean_loss = window_loss_ / static_cast<double>(window_micro_);
  torch::Tensor step_loss = parallel_ ? parallel_->mean(mean_loss) : mean_loss;
  torch::Tensor counted = window_bad_.logical_not();
  iv.loss_sum = iv.loss_sum + torch::where(counted, step_loss, torch::zeros_like(step_loss));
  iv.loss_steps = iv.loss_steps + counted.to(torch::kFloat64);
}

// One read of everything the device holds since the last settle: the steps the
// schedule applied, the interval's sums, norm and rate, and each micro-batch's
// loss, whose non-finite ones are reported as train.nan_policy says.
void Trainer::settle() {
  Interval& iv = *interval_;
  std::vector<torch::Tensor> scalars = {schedule_.applied(), iv.loss_sum, iv.loss_steps};
  if (iv.grad_norm.defined()) scalars.push_back(iv.grad_norm);
  if (iv.lr.defined()) scalars.push_back(iv.lr);
  const size_t first_loss = scalars.size();
  for (const auto& m : pending_) scalars.push_back(m.loss);
  const std::vector<double> v = read_doubles(scalars);
  state_.scheduler_step += static_cast<long long>(v[0]);
  schedule_.refill(state_.scheduler_step, loop_.settle_capacity(), device_);
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

}  // namespace runner
