// The training loop: epochs of windows, and after each optimizer step what the
// loop schedule (train/loop_schedule.h) says comes there: settle, log, evaluate,
// checkpoint. The step itself is in trainer_step.cpp, the saved state and
// checkpoints in trainer_state.cpp, evaluation and the best metric in trainer_eval.cpp.
#include "train/trainer.h"
#include "train/trainer_interval.h"
#include "train/interrupt.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <cmath>
#include <utility>

namespace runner {

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
      total_steps_(config_.max_steps > 0 ? config_.max_steps : steps_for_epochs()),
      loop_(config_, eval != nullptr, total_steps_),
      device_(model_->parameters().front().device()) {
  interval_ = std::make_shared<Interval>(device_);
  if (config_.precision == Precision::Fp16 && !torch::cuda::is_available())
    throw InputError(make_error({}, "train.precision", "fp16 needs CUDA, and none is available",
                                "use precision = \"bf16\" (autocast) or \"fp32\" on CPU"));
  state_.grad_accum = config_.grad_accum;
  state_.steps_per_epoch = steps_per_epoch();
  schedule_ = DeviceSchedule(schedule(total_steps_), optimizer_->base_lr());
  schedule_.refill(state_.scheduler_step, loop_.settle_capacity(), device_);
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
  loop_.started(started_);
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
  schedule_.refill(state_.scheduler_step, loop_.settle_capacity(), device_);
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
// and the ranks need not agree on every step (no data parallelism), and the
// model recomputes no layer in its backward (gradient checkpointing sets the
// random generators' state, which a capture forbids); "on" also
// runs the static-buffer step on the CPU, uncaptured (how the tests check it).
// Graphs need fixed shapes: the model runs padded, each batch shape its graph.
void Trainer::start_graphs() {
  const bool capturable =
      device_.is_cuda() && optimizer_->capturable(device_) && !model_->gradient_checkpointing();
  const bool on = config_.cuda_graphs == CudaGraphs::On ||
                  (config_.cuda_graphs == CudaGraphs::Auto && capturable);
  if (!on || parallel_) return;
  model_->set_execution(Execution::Padded);
  graphs_ = std::make_unique<StepGraphs>(capturable);
  emit({{"event", "cuda_graphs"}, {"captured", capturable},
        {"why", capturable ? "one graph per batch shape (data.pad_to_multiple_of bounds their number)"
                           : "not captured: the device, the optimizer or gradient checkpointing cannot be (the "
                           "static-buffer step runs eagerly)"}});
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

// Logging, evaluation and the epoch transition come before the checkpoint, so
// that a resumed run never repeats them; all of them follow a settle.
void Trainer::after_step(bool epoch_end) {
  long long step = state_.global_step;
  if (parallel_) interrupt_ = parallel_->agree_interrupt(pending_interrupt());
  emit({{"event", "progress"}, {"step", step}, {"total_steps", total_steps_}, {"epoch", state_.epoch},
        {"steps_per_epoch", state_.steps_per_epoch}});
  if (loop_.settles_at(step, epoch_end, stop_early_ || interrupt() != 0, unsettled_steps_)) settle();
  if (loop_.logs_at(step)) log_interval();
  // From here to the end of the step: evaluation, the epoch's end, checkpoints.
  const auto pause_began = std::chrono::steady_clock::now();
  interval_->step_ended = pause_began;
  // The last step is evaluated like any other, so that the final evaluation is
  // an eval event that competes for best, also where max_steps ends the run
  // inside an epoch (before the epoch advances: it is this epoch's evaluation).
  if (loop_.evaluates_at(step)) maybe_evaluate(false);
  if (epoch_end) {
    maybe_evaluate(true);
    ++state_.epoch;
    state_.batch_in_epoch = 0;
  }
  bool periodic = loop_.checkpoints_at(step) || checkpoint_due_by_time(step);
  bool last = loop_.last(step) || stop_early_ || interrupt() != 0;
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
  const bool due = loop_.checkpoint_due(std::chrono::steady_clock::now());
  if (!parallel_) return due;
  return loop_.logs_at(step) && parallel_->any_rank({due})[0];
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
