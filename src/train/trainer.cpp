#include "train/trainer.h"
#include "train/trainer_interval.h"
#include "train/autocast.h"
#include "optim/grad_clip.h"
#include "train/interrupt.h"
#include "util/diagnostic.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
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
      interval_(std::make_shared<Interval>()),
      device_type_(model_->parameters().front().device().type()) {
  if (config_.precision == Precision::Fp16 && !torch::cuda::is_available())
    throw InputError(make_error({}, "train.precision", "fp16 needs CUDA, and none is available",
                                "use precision = \"bf16\" (autocast) or \"fp32\" on CPU"));
  state_.grad_accum = config_.grad_accum;
  state_.steps_per_epoch = steps_per_epoch();
  total_steps_ = config_.max_steps > 0 ? config_.max_steps : steps_for_epochs();
  schedule_ = schedule(total_steps_);
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
  while (!finished()) run_epoch();
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
  return out;
}

// The heart of the loop: micro-batches accumulate into windows; a full window
// (or the epoch's last, shorter one) makes one optimizer step.
void Trainer::run_epoch() {
  data_.start_epoch(state_.epoch);
  const long long epoch = state_.epoch, n = data_.batches_per_epoch();
  while (state_.epoch == epoch && !finished()) {
    long long b = state_.batch_in_epoch;
    micro_step(data_.batch(b), window_size(b));
    state_.batch_in_epoch = b + 1;
    bool epoch_end = b + 1 == n;
    if (!epoch_end && (b + 1) % config_.grad_accum != 0) continue;
    optimizer_step();
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
  AutocastGuard autocast(config_.precision, device_type_);
  return model_->forward(batch);
}

void Trainer::micro_step(const TrainBatch& batch, long long window) {
  ModelOutput out = forward(batch.tensors);
  const bool bad = loss_is_bad(out.loss, batch);
  window_bad_ = window_bad_ || bad;
  // Under data parallelism a bad micro-batch still runs its backward, so that
  // this rank enters the window's gradient exchange with the others; every
  // rank then skips the step together (optimizer_step).
  if (!bad || parallel_) {
    torch::Tensor scaled = scaler_.scale_loss(out.loss / static_cast<double>(window));
    if (!parallel_) {
      scaled.backward();
    } else {
      const bool sync = window_micro_ + 1 == window;  // a window's last micro-batch
      parallel_->before_backward(scaled, sync);
      try {
        scaled.backward();
      } catch (const std::exception& e) {  // the Reducer's collective failed inside backward
        parallel_->fail("the gradient all-reduce", first_line(e.what()));
      }
      parallel_->after_backward(sync);
    }
    torch::Tensor detached = out.loss.detach().to(torch::kFloat64);
    if (!bad) window_loss_ = window_loss_.defined() ? window_loss_ + detached : detached;
  }
  ++window_micro_;
  interval_->samples += batch.examples;
  interval_->tokens += batch.tokens;
  // The whole run's count: every rank's batches are the same size (the sampler
  // pads the epoch to a multiple of the world), so the world's is world x this.
  state_.samples_seen += batch.examples * (parallel_ ? parallel_->world_size() : 1);
}

bool Trainer::loss_is_bad(const torch::Tensor& loss, const TrainBatch& batch) {
  // One host read of a scalar per micro-batch: free on CPU, where the value is
  // already computed.
  if (loss.isfinite().item<bool>()) return false;
  if (config_.nan_policy == NanPolicy::Skip) {
    emit({{"event", "nan_skip"}, {"step", state_.global_step + 1}, {"examples", batch.example_ids}});
    return true;
  }
  std::string what = fmt::format("the loss is {} at optimizer step {} (epoch {}, micro-batch {}); "
                                 "examples: {}",
                                 loss.item<double>(), state_.global_step + 1, state_.epoch,
                                 state_.batch_in_epoch, fmt::join(batch.example_ids, ", "));
  if (!parallel_) throw nan_abort_error(what);
  if (nan_abort_.empty()) nan_abort_ = what;  // raised in optimizer_step, on every rank
  return true;
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

void Trainer::optimizer_step() {
  // Under data parallelism these are the parameters whose averaged gradients this rank holds.
  const auto& params = optimizer_->parameters();
  bool bad_grad = scaler_.unscale(params), bad_loss = window_bad_;
  if (parallel_) {
    std::vector<bool> agreed = parallel_->any_rank({bad_grad, bad_loss});
    if (agreed[1] && config_.nan_policy == NanPolicy::Abort) throw_nan_abort();
    if (agreed[1] && !bad_loss)
      emit({{"event", "nan_skip"}, {"step", state_.global_step + 1}, {"on_another_rank", true}});
    bad_grad = agreed[0], bad_loss = agreed[1];
  }
  const bool found_inf = bad_grad || bad_loss;
  // A rank's NaN-loss backward left NaN in the exchanged gradients: nothing to measure.
  // The norm is a pass over every gradient: taken when clipping needs it or when
  // this step's log line reports it, not on every step.
  const bool want_norm = config_.max_grad_norm > 0 || logs_at(state_.global_step + 1);
  torch::Tensor norm;
  if (want_norm && !parallel_) norm = clip_grad_norm(params, config_.max_grad_norm);
  else if (want_norm && !found_inf) norm = parallel_->clip_grad_norm(config_.max_grad_norm);
  double lr = optimizer_->base_lr() * schedule_(state_.scheduler_step);
  if (!found_inf) {
    optimizer_->step(lr);
    if (parallel_) parallel_->after_optimizer_step();
    ++state_.scheduler_step;  // a skipped step does not advance the schedule
  }
  scaler_.update(found_inf && scaler_.enabled());
  // Data parallelism keeps its gradients: the gradient exchange writes into them in place.
  if (parallel_) {
    optimizer_->zero_grad();
    zero_gradients(parallel_->all_parameters());
  } else {
    release_gradients(optimizer_->parameters());
  }
  ++state_.global_step;
  if (window_loss_.defined() && !(parallel_ && bad_loss)) {  // every rank has a loss, or none logs
    torch::Tensor mean_loss = window_loss_ / static_cast<double>(window_micro_);
    torch::Tensor step_loss = parallel_ ? parallel_->mean(mean_loss) : mean_loss;
    // The sum stays on the loss's device: no host read until the interval is logged.
    interval_->loss_sum = interval_->loss_sum.to(step_loss.device()) + step_loss;
    ++interval_->steps;
  }
  if (norm.defined()) interval_->grad_norm = norm;
  interval_->lr = lr;
  window_loss_ = torch::Tensor();
  window_micro_ = 0;
  window_bad_ = false;
}

bool Trainer::logs_at(long long step) const {
  return step % config_.log_every == 0 || step == total_steps_;
}

// Logging, evaluation and the epoch transition come before the checkpoint, so
// that a resumed run never repeats them.
void Trainer::after_step(bool epoch_end) {
  long long step = state_.global_step;
  if (parallel_) interrupt_ = parallel_->agree_interrupt(pending_interrupt());
  emit({{"event", "progress"}, {"step", step}, {"total_steps", total_steps_}});
  if (logs_at(step)) log_interval();
  if (config_.eval_every > 0 && step % config_.eval_every == 0) maybe_evaluate(false);
  if (epoch_end) {
    maybe_evaluate(true);
    ++state_.epoch;
    state_.batch_in_epoch = 0;
  }
  bool periodic = config_.checkpoint_every > 0 && step % config_.checkpoint_every == 0;
  bool last = step >= total_steps_ || stop_early_ || interrupt() != 0;
  if (periodic || last || save_best_) save_checkpoint();
  save_best_ = false;
}

void Trainer::log_interval() {
  Interval& iv = *interval_;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - iv.since).count();
  // Under data parallelism every rank sees an equal share of each step's examples.
  const long long world = parallel_ ? parallel_->world_size() : 1;
  nlohmann::json e = {{"event", "train"},
                      {"step", state_.global_step},
                      {"total_steps", total_steps_},
                      {"epoch", state_.epoch},
                      {"lr", iv.lr},
                      {"samples_per_s", seconds > 0 ? world * iv.samples / seconds : 0.0},
                      {"tokens_per_s", seconds > 0 ? iv.tokens / seconds : 0.0},
                      {"effective_batch", iv.steps > 0 ? world * iv.samples / iv.steps : 0}};
  if (iv.steps > 0) e["loss"] = iv.loss_sum.item<double>() / static_cast<double>(iv.steps);
  if (iv.grad_norm.defined()) e["grad_norm"] = iv.grad_norm.item<double>();
  if (scaler_.enabled()) {
    e["loss_scale"] = scaler_.state().scale;
    e["skipped_steps"] = scaler_.state().skipped_steps;
  }
  emit(e);
  interval_ = std::make_shared<Interval>();
}

void Trainer::emit(const nlohmann::json& event) {
  for (Logger* l : loggers_) l->log(event);
}

}  // namespace runner
