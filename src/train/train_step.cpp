#include "train/train_step.h"
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

// A window is skipped when a micro-batch's loss or (under loss scaling) a gradient is not finite.
torch::Tensor skip_flag(const torch::Tensor& window_bad, const torch::Tensor& bad_grad) {
  return bad_grad.defined() ? window_bad.logical_or(bad_grad) : window_bad;
}

}  // namespace

TrainStep::TrainStep(const TrainerConfig& config, std::shared_ptr<TaskModel> model,
                     std::unique_ptr<Optimizer> optimizer, const ScheduleMaker& schedule,
                     const TrainingScheduler& scheduler, TrainingState& state, const EventLog& events)
    : config_(config),
      model_(std::move(model)),
      optimizer_(std::move(optimizer)),
      scheduler_(scheduler),
      state_(state),
      events_(events),
      device_(model_->parameters().front().device()),
      scaler_(config.precision == Precision::Fp16, config.loss_scale_init, config.loss_scale_growth_interval),
      interval_(device_) {
  if (config_.precision == Precision::Fp16 && !torch::cuda::is_available())
    throw InputError(make_error({}, "train.precision", "fp16 needs CUDA, and none is available",
                                "use precision = \"bf16\" (autocast) or \"fp32\" on CPU"));
  schedule_ = DeviceSchedule(schedule(scheduler_.total_steps()), optimizer_->base_lr());
  if (!config_.loss_weights.empty())
    loss_weights_ = torch::tensor(config_.loss_weights, torch::kFloat64).to(device_, torch::kFloat32);
  schedule_.refill(state_.scheduler_step, scheduler_.settle_capacity(), device_);
}

void TrainStep::start(std::chrono::steady_clock::time_point now) {
  interval_.since = now;  // the set-up before (a resume's checkpoint read) is not training
  schedule_.refill(state_.scheduler_step, scheduler_.settle_capacity(), device_);
  start_graphs();
}

// train.cuda_graphs: "auto" captures on a GPU when the optimizer can be captured
// and the ranks need not agree on every step (no data parallelism), and the
// model recomputes no layer in its backward (gradient checkpointing sets the
// random generators' state, which a capture forbids); "on" also
// runs the static-buffer step on the CPU, uncaptured (how the tests check it).
// Graphs need fixed shapes: the model runs padded, each batch shape its graph.
void TrainStep::start_graphs() {
  const bool capturable =
      device_.is_cuda() && optimizer_->capturable(device_) && !model_->gradient_checkpointing();
  const bool on = config_.cuda_graphs == CudaGraphs::On ||
                  (config_.cuda_graphs == CudaGraphs::Auto && capturable);
  if (!on || parallel_) return;
  model_->set_execution(Execution::Padded);
  graphs_ = std::make_unique<StepGraphs>(capturable);
  events_.emit({{"event", "cuda_graphs"}, {"captured", capturable},
                {"why", capturable ? "one graph per batch shape (data.pad_to_multiple_of bounds their number)"
                                   : "not captured: the device, the optimizer or gradient checkpointing cannot "
                                     "be (the static-buffer step runs eagerly)"}});
}

// A window of one micro-batch is a whole step: one graph replay when it can be.
bool TrainStep::update(const TrainBatch& batch, long long window, bool closes) {
  const bool graphed = window == 1 && graphs_ && graphed_step(batch);
  if (!graphed) micro_step(batch, window);
  if (!closes) return false;
  if (!graphed) optimizer_step();
  return true;
}

// Autocast covers the forward and its loss only, entered and left per call, as
// Accelerate's prepared model enters torch.autocast per forward. Autocast caches
// the low-precision copy of every weight until its outermost region ends, and
// the optimizer's in-place update does not invalidate that cache: a region kept
// open across a step would run every later forward on stale weights. Backward
// and the optimizer step run outside it, as PyTorch's autocast docs require.
ModelOutput TrainStep::forward(const ModelBatch& batch) {
  AutocastGuard autocast(config_.precision, device_.type());
  ForwardOptions options;
  options.label_smoothing = config_.label_smoothing;
  // Weights shape what training learns; an evaluation's loss stays the plain
  // one, comparable across weightings (and what `runner evaluate` reports).
  if (model_->is_training()) options.class_weights = loss_weights_;
  return model_->forward(batch, options);
}

// Every micro-batch runs its backward, a non-finite one too: whether a loss is
// finite is known only on the device, where a window holding one is skipped
// (optimizer_step). Under data parallelism that also keeps this rank in step
// with the others' gradient exchange.
//
// A window of token classification micro-batches learns the mean loss over
// its labelled tokens, not the mean of the micro-batches' means (which weighs
// a token of a short micro-batch more): each backward takes its micro-batch's
// loss sum (mean times labelled tokens), and the update divides the summed
// gradients by the window's token count (divide_by_window_tokens). Under data
// parallelism the window spans every rank's micro-batches, so the same holds
// with one micro-batch a rank: the count is the ranks' total.
void TrainStep::micro_step(const TrainBatch& batch, long long window) {
  const bool spans_batches = window > 1 || world() > 1;
  const bool by_tokens = spans_batches && batch.labelled_tokens > 0;
  window_tokens_ += by_tokens ? batch.labelled_tokens : 0;
  record_loss(forward_backward(batch.tensors, window, by_tokens ? batch.labelled_tokens : 0), batch,
              spans_batches && is_token_batch(batch));
  count_micro_batch(batch);
}

// Under data parallelism the exchange averaged the ranks' sums: dividing by
// the ranks' mean count gives the sum over every rank's tokens over their total.
void TrainStep::divide_by_window_tokens() {
  if (window_tokens_ == 0) return;
  torch::Tensor count = torch::full({}, static_cast<double>(window_tokens_),
                                    torch::TensorOptions().dtype(torch::kFloat64).device(device_));
  if (parallel_) count = parallel_->mean(count);
  const torch::Tensor scale = count.reciprocal().to(torch::kFloat32);
  for (const auto& p : optimizer_->parameters())
    if (p.tensor.grad().defined()) p.tensor.mutable_grad().mul_(scale.to(p.tensor.grad().scalar_type()));
  window_tokens_ = 0;
}

// The device work of a micro-batch: forward, loss, backward. Returns the loss
// (float64) and whether it is not finite, both 0-d on the device.
TrainStep::MicroLoss TrainStep::forward_backward(const ModelBatch& batch, long long window, long long sum_tokens) {
  ModelOutput out = forward(batch);
  torch::Tensor value = out.loss.detach().to(torch::kFloat64);
  MicroLoss loss{value, value.isfinite().logical_not()};
  torch::Tensor scaled = scaler_.scale_loss(sum_tokens > 0 ? out.loss * static_cast<double>(sum_tokens)
                                                           : out.loss / static_cast<double>(window));
  if (probe_.loss_factor != 1.0) scaled = scaled * probe_.loss_factor;
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

// Token classification's labels: one integer per token, [batch, length].
bool TrainStep::is_token_batch(const TrainBatch& batch) {
  const torch::Tensor& labels = batch.tensors.labels;
  return labels.defined() && labels.dim() == 2 && labels.scalar_type() == torch::kInt64;
}

void TrainStep::count_micro_batch(const TrainBatch& batch) {
  ++window_micro_;
  interval_.samples += batch.examples;
  interval_.tokens += batch.tokens;
  // The whole run's count: every rank's batches are the same size (the sampler
  // pads the epoch to a multiple of the world), so the world's is world x this.
  state_.samples_seen += batch.examples * world();
}

// On the device: the window's loss sum leaves a non-finite loss out, and the
// window's flag remembers it. On the host: what a NaN report will name.
// `by_tokens` weighs the mean by its labelled tokens, so that the logged loss
// is the window's token mean, the loss its update learned.
void TrainStep::record_loss(const MicroLoss& loss, const TrainBatch& batch, bool by_tokens) {
  torch::Tensor kept = torch::where(loss.bad, torch::zeros_like(loss.value), loss.value);
  window_by_tokens_ = by_tokens;
  if (by_tokens) {
    kept = kept * static_cast<double>(batch.labelled_tokens);
    window_loss_tokens_ += batch.labelled_tokens;
  }
  window_loss_ = window_loss_.defined() ? window_loss_ + kept : kept;
  window_bad_ = window_bad_.defined() ? window_bad_.logical_or(loss.bad) : loss.bad;
  pending_.push_back({loss.value, state_.global_step + 1, state_.epoch, state_.batch_in_epoch, batch.example_ids});
}

// One window of one micro-batch, its forward, backward and update in one CUDA
// graph replay (train/step_graphs.h); the host's bookkeeping follows as in the
// eager step. False when the batch's shape has no graph: the caller runs it eagerly.
bool TrainStep::graphed_step(const TrainBatch& batch) {
  auto outputs = graphs_->run(batch.tensors, [this](const ModelBatch& inputs) {
    MicroLoss loss = forward_backward(inputs, 1, 0);
    UpdateResult r = apply_update(skip_flag(loss.bad, scaler_.unscale(optimizer_->parameters())), false);
    return std::vector<torch::Tensor>{loss.value, loss.bad, r.skip, r.norm, r.lr};
  });
  if (!outputs) return false;
  const std::vector<torch::Tensor>& o = *outputs;  // copies: the trainer may keep them
  record_loss({o[0], o[1]}, batch, false);
  count_micro_batch(batch);
  finish_step({o[2], o[3], o[4]}, false);
  return true;
}

// Nothing here reads the device without data parallelism: the skip flag, the
// learning rate, the norm and the loss sums are tensors the next kernels consume.
void TrainStep::optimizer_step() {
  divide_by_window_tokens();
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

// The device work of an optimizer step once its skip flag is known: clipping,
// the learning rate, the update, the schedule's and the loss scale's progress.
TrainStep::UpdateResult TrainStep::apply_update(const torch::Tensor& skip, bool rank_skipped) {
  const auto& params = optimizer_->parameters();
  // The norm is a pass over every gradient: taken when clipping needs it, when
  // this step's log line reports it, or always in a graph (the same kernels every
  // replay). A skipped step's NaN gradients under data parallelism have nothing to measure.
  const bool want_norm = config_.max_grad_norm > 0 || scheduler_.logs_at(state_.global_step + 1) || graphs_;
  UpdateResult r{skip, torch::Tensor(), schedule_.lr()};
  if (want_norm && !parallel_) r.norm = clip_grad_norm(params, config_.max_grad_norm);
  else if (want_norm && !rank_skipped) r.norm = parallel_->clip_grad_norm(config_.max_grad_norm);
  if (!rank_skipped) {
    if (probe_.before_update) probe_.before_update(state_.global_step + 1, params, read_double(r.lr));
    optimizer_->step({r.lr, skip});
    if (parallel_) parallel_->after_optimizer_step();
  }
  schedule_.advance(skip);  // a skipped step does not advance the schedule
  scaler_.update(skip);
  return r;
}

// The host's side of a step, after its device work.
void TrainStep::finish_step(const UpdateResult& r, bool any_rank_bad_loss) {
  // Data parallelism keeps its gradients: the gradient exchange writes into them in place.
  if (parallel_) {
    optimizer_->zero_grad();
    zero_gradients(parallel_->all_parameters());
  } else {
    release_gradients(optimizer_->parameters());
  }
  ++state_.global_step;
  ++unsettled_steps_;
  interval_.lr = r.lr;
  if (r.norm.defined()) interval_.grad_norm = r.norm;
  add_to_interval(any_rank_bad_loss);
  window_loss_ = torch::Tensor();
  window_bad_ = torch::Tensor();
  window_micro_ = 0;
  window_loss_tokens_ = 0;
  window_by_tokens_ = false;
}

// The ranks agree on the host whether the window is skipped (reads on each):
// every rank then skips together, and nan_policy "abort" stops them all.
// Returns {skip the step, some rank's loss was not finite}.
std::pair<bool, bool> TrainStep::agree_on_skip(const torch::Tensor& bad_grad) {
  settle();  // reads this window's losses: names a NaN's examples
  const bool bad_loss = read_bool(window_bad_);
  std::vector<bool> agreed = parallel_->any_rank({bad_grad.defined() && read_bool(bad_grad), bad_loss});
  if (agreed[1] && config_.nan_policy == NanPolicy::Abort) throw_nan_abort();
  if (agreed[1] && !bad_loss)
    events_.emit({{"event", "nan_skip"}, {"step", state_.global_step + 1}, {"on_another_rank", true}});
  return {agreed[0] || agreed[1], agreed[1]};
}

// The window's loss: the mean of its micro-batches' means, or for token
// classification under accumulation the sum over its labelled tokens over
// their count. Under data parallelism the ranks' means of both give the
// world's token mean.
torch::Tensor TrainStep::window_mean_loss() {
  if (!window_by_tokens_) {
    torch::Tensor mean = window_loss_ / static_cast<double>(window_micro_);
    return parallel_ ? parallel_->mean(mean) : mean;
  }
  torch::Tensor tokens = torch::full({}, static_cast<double>(window_loss_tokens_),
                                     torch::TensorOptions().dtype(torch::kFloat64).device(device_));
  if (!parallel_) return window_loss_ / tokens;
  return parallel_->mean(window_loss_) / parallel_->mean(tokens);
}

// The step's mean loss counts in the interval when every micro-batch's was finite
// (decided on the device); under data parallelism, when every rank's was.
void TrainStep::add_to_interval(bool any_rank_bad_loss) {
  LogInterval& iv = interval_;
  ++iv.steps;
  if (!window_loss_.defined() || any_rank_bad_loss) return;
  torch::Tensor step_loss = window_mean_loss();
  torch::Tensor counted = window_bad_.logical_not();
  iv.loss_sum = iv.loss_sum + torch::where(counted, step_loss, torch::zeros_like(step_loss));
  iv.loss_steps = iv.loss_steps + counted.to(torch::kFloat64);
}

}  // namespace runner
