#include "train/trainer.h"
#include "train/trainer_interval.h"
#include "train/autocast.h"
#include "optim/grad_clip.h"
#include "model/host_read.h"
#include "train/interrupt.h"
#include "util/diagnostic.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
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

Trainer::Trainer(TrainerConfig config, std::shared_ptr<SequenceClassifier> model,
                 std::unique_ptr<Optimizer> optimizer, ScheduleMaker schedule,
                 BatchSource& data, const EvalSet* eval, std::vector<Logger*> loggers)
    : config_(std::move(config)),
      model_(std::move(model)),
      optimizer_(std::move(optimizer)),
      data_(data),
      eval_(eval),
      loggers_(std::move(loggers)),
      scaler_(config_.precision == Precision::Fp16, config_.loss_scale_init,
              config_.loss_scale_growth_interval),
      device_(model_->parameters().front().device()) {
  interval_ = std::make_shared<Interval>(device_);
  if (config_.precision == Precision::Fp16 && !torch::cuda::is_available())
    throw InputError(make_error({}, "train.precision", "fp16 needs CUDA, and none is available",
                                "use precision = \"bf16\" (autocast) or \"fp32\" on CPU"));
  state_.grad_accum = config_.grad_accum;
  state_.steps_per_epoch = steps_per_epoch();
  total_steps_ = config_.max_steps > 0 ? config_.max_steps : steps_for_epochs();
  schedule_ = DeviceSchedule(schedule(total_steps_), optimizer_->base_lr());
  schedule_.refill(state_.scheduler_step, settle_capacity(), device_);
}

long long Trainer::steps_per_epoch() const {
  long long n = data_.batches_per_epoch();
  // Not (n + grad_accum - 1) / grad_accum: that overflows for a huge grad_accum.
  return n / config_.grad_accum + (n % config_.grad_accum != 0);
}

// ceil(epochs x steps per epoch), refused when it does not fit a step count
// (a cast of a larger double is undefined, and came out negative: 0 steps).
long long Trainer::steps_for_epochs() const {
  long long per_epoch = steps_per_epoch();
  double steps = std::ceil(config_.epochs * static_cast<double>(per_epoch));
  if (std::isfinite(steps) && steps < 9.2e18) return static_cast<long long>(steps);
  throw InputError(make_error(
      {}, "train.epochs",
      fmt::format("{} epochs of {} optimizer steps are {:.3g} steps, more than a run can count (2^63)",
                  config_.epochs, per_epoch, steps),
      "lower train.epochs, or set train.max_steps"));
}

bool Trainer::finished() const {
  return state_.global_step >= total_steps_ || stop_early_ || interrupt() != 0;
}

int Trainer::interrupt() const { return parallel_ ? interrupt_ : pending_interrupt(); }

void Trainer::set_parallel(ParallelHooks* parallel) {
  parallel_ = parallel;
  state_.world_size = parallel ? parallel->world_size() : 1;
}

long long Trainer::window_size(long long b) const {
  long long start = b - b % config_.grad_accum;
  return std::min(config_.grad_accum, data_.batches_per_epoch() - start);
}

TrainOutcome Trainer::train() {
  started_ = std::chrono::steady_clock::now();
  last_checkpoint_ = started_;
  interval_->since = started_;  // the set-up before (a resume's checkpoint read) is not training either
  model_->train();
  emit({{"event", "start"},
        {"total_steps", total_steps_},
        {"steps_per_epoch", steps_per_epoch()},
        {"grad_accum", config_.grad_accum},
        {"precision", precision_name(config_.precision)},
        {"resumed_at_step", state_.global_step}});
  if (data_.batches_per_epoch() == 0)
    throw InputError(make_error({}, "data", "the training split yields no batches",
                                "check data.train_split and data.max_train_examples"));
  schedule_.refill(state_.scheduler_step, settle_capacity(), device_);
  start_graphs();
  try {
    while (!finished()) run_epoch();
  } catch (...) {
    end_checkpoints(true);
    throw;
  }
  end_checkpoints(false);
  TrainOutcome out;
  out.status = stop_early_ ? TrainStatus::EarlyStopped : TrainStatus::Completed;
  if (int sig = interrupt()) {
    out.status = TrainStatus::Interrupted;
    out.signal = sig;
  }
  out.last_eval = last_eval_;
  if (state_.best.has_best)
    out.best = {{"value", state_.best.value}, {"step", state_.best.step},
                {"checkpoint", state_.best.checkpoint}};
  out.global_step = state_.global_step;
  out.samples = state_.samples_seen;
  out.train_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  if (checkpointer_) out.checkpoints = checkpointer_->totals().json();
  return out;
}

// train.cuda_graphs: "auto" captures on a GPU when the optimizer can be captured
// and the ranks need not agree on every step (no data parallelism); "on" also
// runs the static-buffer step on the CPU, uncaptured (how the tests check it).
// Graphs need fixed shapes: the model runs padded, each batch shape its graph.
void Trainer::start_graphs() {
  const bool capturable = device_.is_cuda() && optimizer_->capturable(device_);
  const bool on = config_.cuda_graphs == CudaGraphs::On ||
                  (config_.cuda_graphs == CudaGraphs::Auto && capturable);
  if (!on || parallel_) return;
  model_->set_execution(Execution::Padded);
  graphs_ = std::make_unique<StepGraphs>(capturable);
  emit({{"event", "cuda_graphs"}, {"captured", capturable},
        {"why", capturable ? "one graph per batch shape (data.pad_to_multiple_of bounds their number)"
                           : "not captured: the device or the optimizer cannot be (the static-buffer step runs eagerly)"}});
}

// The heart of the loop: micro-batches accumulate into windows; a full window
// (or the epoch's last, shorter one) makes one optimizer step.
void Trainer::run_epoch() {
  data_.start_epoch(state_.epoch);
  const long long epoch = state_.epoch, n = data_.batches_per_epoch();
  while (state_.epoch == epoch && !finished()) {
    long long b = state_.batch_in_epoch;
    const long long window = window_size(b);
    TrainBatch batch = data_.batch(b);
    // A window of one micro-batch is a whole step: one graph replay when it can be.
    const bool graphed = window == 1 && graphs_ && graphed_step(batch);
    if (!graphed) micro_step(batch, window);
    state_.batch_in_epoch = b + 1;
    bool epoch_end = b + 1 == n;
    if (!epoch_end && (b + 1) % config_.grad_accum != 0) continue;
    if (!graphed) optimizer_step();
    after_step(epoch_end);
  }
}

// Autocast covers the forward and its loss only, entered and left per call, as
// Accelerate's prepared model enters torch.autocast per forward. Autocast caches
// the low-precision copy of every weight until its outermost region ends, and
// the optimizer's in-place update does not invalidate that cache: a region kept
// open across a step would run every later forward on stale weights. Backward
// and the optimizer step run outside it, as PyTorch's autocast docs require.
ModelOutput Trainer::forward(const ModelBatch& batch) {
  AutocastGuard autocast(config_.precision, device_.type());
  return model_->forward(batch);
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
  const bool want_norm = config_.max_grad_norm > 0 || logs_at(state_.global_step + 1) || graphs_;
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

bool Trainer::logs_at(long long step) const {
  return step % config_.log_every == 0 || step == total_steps_;
}

// Logging, evaluation and the epoch transition come before the checkpoint, so
// that a resumed run never repeats them; all of them follow a settle.
void Trainer::after_step(bool epoch_end) {
  long long step = state_.global_step;
  if (parallel_) interrupt_ = parallel_->agree_interrupt(pending_interrupt());
  emit({{"event", "progress"}, {"step", step}, {"total_steps", total_steps_}, {"epoch", state_.epoch},
        {"steps_per_epoch", state_.steps_per_epoch}});
  if (settles_at(step, epoch_end)) settle();
  if (logs_at(step)) log_interval();
  // From here to the end of the step: evaluation, the epoch's end, checkpoints.
  const auto pause_began = std::chrono::steady_clock::now();
  interval_->step_ended = pause_began;
  if (config_.eval_every > 0 && step % config_.eval_every == 0) maybe_evaluate(false);
  // The last step is evaluated like any other, so that the final evaluation is
  // an eval event that competes for best, also where max_steps ends the run
  // inside an epoch (before the epoch advances: it is this epoch's evaluation).
  if (step >= total_steps_) maybe_evaluate(false);
  if (epoch_end) {
    maybe_evaluate(true);
    ++state_.epoch;
    state_.batch_in_epoch = 0;
  }
  bool periodic = (config_.checkpoint_every > 0 && step % config_.checkpoint_every == 0) ||
                  checkpoint_due_by_time(step);
  bool last = step >= total_steps_ || stop_early_ || interrupt() != 0;
  if (periodic || last || save_best_) save_checkpoint();
  save_best_ = false;
  report_written_checkpoints();
  interval_->paused += std::chrono::steady_clock::now() - pause_began;
}

// train.checkpoint_every_minutes since the last checkpoint (or the start). Under
// data parallelism the ranks' clocks differ and every rank must take the
// checkpoint together: they agree at log steps, where they meet anyway.
bool Trainer::checkpoint_due_by_time(long long step) {
  if (config_.checkpoint_every_minutes <= 0 || config_.checkpoints_dir.empty()) return false;
  const auto since = std::chrono::steady_clock::now() - last_checkpoint_;
  const bool due = std::chrono::duration<double>(since).count() >= config_.checkpoint_every_minutes * 60.0;
  if (!parallel_) return due;
  return logs_at(step) && parallel_->any_rank({due})[0];
}

// Where the host needs what only the device knows: a log line, an evaluation
// (its checkpoint of a new best), a checkpoint, the end; and often enough that
// the schedule's table (settle_capacity steps) never runs out.
bool Trainer::settles_at(long long step, bool epoch_end) const {
  const bool evaluates = eval_ && ((config_.eval_every > 0 && step % config_.eval_every == 0) ||
                                   (epoch_end && config_.eval_each_epoch));
  const bool checkpoints = config_.checkpoint_every > 0 && step % config_.checkpoint_every == 0;
  return logs_at(step) || evaluates || checkpoints || step >= total_steps_ || stop_early_ ||
         interrupt() != 0 || unsettled_steps_ >= settle_capacity();
}

// Log steps come every log_every steps; other settles only come sooner.
long long Trainer::settle_capacity() const { return std::min<long long>(config_.log_every, 1000); }

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
  schedule_.refill(state_.scheduler_step, settle_capacity(), device_);
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

// The rates are of training alone: the interval's evaluations and checkpoint
// writes are left out, so that they do not dip at every evaluation.
void Trainer::log_interval() {
  Interval& iv = *interval_;
  const double seconds = iv.trained_seconds(std::chrono::steady_clock::now());
  // Under data parallelism every rank sees an equal share of each step's examples.
  const long long world = parallel_ ? parallel_->world_size() : 1;
  nlohmann::json e = {{"event", "train"},
                      {"step", state_.global_step},
                      {"total_steps", total_steps_},
                      {"epoch", state_.epoch},
                      {"lr", iv.settled.lr},
                      {"samples_per_s", seconds > 0 ? world * iv.samples / seconds : 0.0},
                      {"tokens_per_s", seconds > 0 ? iv.tokens / seconds : 0.0},
                      {"effective_batch", iv.steps > 0 ? world * iv.samples / iv.steps : 0}};
  if (iv.settled.loss_steps > 0) e["loss"] = iv.settled.loss_sum / iv.settled.loss_steps;
  if (iv.settled.grad_norm) e["grad_norm"] = *iv.settled.grad_norm;
  if (scaler_.enabled()) {
    LossScalerState scaler = scaler_.state();
    e["loss_scale"] = scaler.scale;
    e["skipped_steps"] = scaler.skipped_steps;
  }
  emit(e);
  interval_ = std::make_shared<Interval>(device_);
}

void Trainer::emit(const nlohmann::json& event) {
  for (Logger* l : loggers_) l->log(event);
}

}  // namespace runner
