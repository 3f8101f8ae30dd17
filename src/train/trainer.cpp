// The training loop: epochs of micro-batches, each handed to the step, and
// after each optimizer step what the scheduler says comes there: settle, log,
// evaluate, checkpoint. The captured state, checkpoints and resume are in
// trainer_checkpoints.cpp, evaluation in trainer_eval.cpp.
#include "train/trainer.h"
#include "model/base_weights.h"

#include "train/interrupt.h"
#include "train/metric_command.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

namespace runner {

namespace {

// Not (n + grad_accum - 1) / grad_accum: that overflows for a huge grad_accum.
long long steps_in_epoch(long long batches, long long grad_accum) {
  return batches / grad_accum + (batches % grad_accum != 0);
}

// train.max_steps, else ceil(epochs x steps per epoch), refused when it does not
// fit a step count (a cast of a larger double is undefined, and came out negative: 0 steps).
long long steps_of_run(const TrainerConfig& config, long long per_epoch) {
  if (config.max_steps > 0) return config.max_steps;
  double steps = std::ceil(config.epochs * static_cast<double>(per_epoch));
  if (std::isfinite(steps) && steps < 9.2e18) return static_cast<long long>(steps);
  throw InputError(make_error(
      {}, "train.epochs",
      fmt::format("{} epochs of {} optimizer steps are {:.3g} steps, more than a run can count (2^63)",
                  config.epochs, per_epoch, steps),
      "lower train.epochs, or set train.max_steps"));
}

// The micro-batches of the window that micro-batch `b` belongs to: grad_accum,
// or fewer in the epoch's last window.
long long window_size(long long b, long long grad_accum, long long batches) {
  long long start = b - b % grad_accum;
  return std::min(grad_accum, batches - start);
}

// Finishes or abandons the write in flight as the run ends (`failed`: by an
// error, which the caller rethrows) and says which. A second SIGINT or SIGTERM
// while the last write finishes abandons it: the previous checkpoint stays the
// newest valid one.
void end_checkpoints(Checkpointer* checkpointer, const EventLog& events, bool failed) {
  if (!checkpointer) return;
  Checkpointer::Final f = checkpointer->finalize([] { return interrupt_count() > 1; });
  for (const CheckpointWritten& w : f.written) events.emit(w.event());
  if (f.end != CheckpointEnd::Idle)
    events.emit({{"event", "checkpoint_end"}, {"write_in_flight", checkpoint_end_name(f.end)},
                 {"run", failed ? "failed" : "ended"}});
  if (f.failure && !failed) std::rethrow_exception(f.failure);
}

}  // namespace

namespace {

// --stop-at-epoch E stops at the step that ends epoch E.
TrainerConfig with_epoch_stop(TrainerConfig c, const BatchSource& data) {
  if (c.stop_at_epoch > 0) c.stop_at_step = c.stop_at_epoch * steps_in_epoch(data.batches_per_epoch(), c.grad_accum);
  return c;
}

}  // namespace

Trainer::Trainer(TrainerConfig config, std::shared_ptr<TaskModel> model,
                 std::unique_ptr<Optimizer> optimizer, ScheduleMaker schedule,
                 BatchSource& data, const EvalSet* eval, std::vector<Logger*> loggers)
    : config_(with_epoch_stop(std::move(config), data)),
      model_(std::move(model)),
      data_(data),
      eval_(eval),
      events_(std::move(loggers)),
      scheduler_(config_, steps_of_run(config_, steps_per_epoch()), eval ? &eval->metrics : nullptr),
      step_(config_, model_, std::move(optimizer), schedule, scheduler_, state_, events_) {
  state_.grad_accum = config_.grad_accum;
  state_.steps_per_epoch = steps_per_epoch();
  // Hashed once: nothing trains the frozen weights.
  if (config_.checkpoint_trainable_only && !config_.checkpoints_dir.empty())
    base_sha256_ = frozen_weights_sha256(*model_);
}

long long Trainer::steps_per_epoch() const { return steps_in_epoch(data_.batches_per_epoch(), config_.grad_accum); }

void Trainer::set_parallel(ParallelHooks* parallel) {
  if (parallel && parallel->world_size() > 1 && !config_.metric_command.empty())
    throw InputError(make_error({}, "train.metric_command",
                                "a metric command scores the whole evaluation in one process, and this run has " +
                                    std::to_string(parallel->world_size()) + " workers",
                                "train in one process, or score the checkpoints afterwards"));
  parallel_ = parallel;
  state_.world_size = parallel ? parallel->world_size() : 1;
  step_.set_parallel(parallel);
  RankAgreement agreement;
  if (parallel) {
    agreement.largest_signal = [parallel](int signal) { return parallel->agree_interrupt(signal); };
    // A bool, not the vector<bool> proxy into the temporary vector that [0] gives.
    agreement.any_rank = [parallel](bool flag) -> bool { return parallel->any_rank({flag})[0]; };
  }
  scheduler_.set_agreement(std::move(agreement));
}

TrainOutcome Trainer::train() {
  const auto started = std::chrono::steady_clock::now();
  scheduler_.started(started);
  model_->train();
  events_.emit({{"event", "start"}, {"total_steps", total_steps()}, {"steps_per_epoch", steps_per_epoch()},
                {"grad_accum", config_.grad_accum}, {"precision", precision_name(config_.precision)},
                {"resumed_at_step", state_.global_step}});
  if (data_.batches_per_epoch() == 0)
    throw InputError(make_error({}, "data", "the training split yields no batches",
                                "check data.train_split and data.max_train_examples"));
  step_.start(started);
  try {
    while (scheduler_.keep_going(state_.global_step)) run_epoch();
  } catch (...) {
    end_checkpoints(checkpointer_.get(), events_, true);
    throw;
  }
  end_checkpoints(checkpointer_.get(), events_, false);
  return outcome();
}

// Micro-batches accumulate into windows; a full window (or the epoch's last,
// shorter one) makes one optimizer step.
void Trainer::run_epoch() {
  data_.start_epoch(state_.epoch);
  const long long epoch = state_.epoch, n = data_.batches_per_epoch();
  while (state_.epoch == epoch && scheduler_.keep_going(state_.global_step)) {
    const long long b = state_.batch_in_epoch;
    const bool closes = b + 1 == n || (b + 1) % config_.grad_accum == 0;
    const bool stepped = step_.update(data_.batch(b), window_size(b, config_.grad_accum, n), closes);
    state_.batch_in_epoch = b + 1;
    if (stepped) after_step(b + 1 == n);
  }
}

// Logging, evaluation and the epoch transition come before the checkpoint, so
// that a resumed run never repeats them; all of them follow a settle. The last
// step is evaluated like any other, so that the final evaluation is an eval
// event that competes for best, also where max_steps ends the run inside an
// epoch (before the epoch advances: it is this epoch's evaluation).
void Trainer::after_step(bool epoch_end) {
  const long long step = state_.global_step;
  scheduler_.agree_on_interrupt();
  events_.emit({{"event", "progress"}, {"step", step}, {"total_steps", total_steps()}, {"epoch", state_.epoch},
                {"steps_per_epoch", state_.steps_per_epoch}});
  if (scheduler_.settles_at(step, epoch_end, step_.unsettled_steps())) step_.settle();
  if (scheduler_.logs_at(step)) {
    events_.emit(step_.take_log_event(total_steps()));
    step_.log_written(std::chrono::steady_clock::now());  // writing the line is not training
  }
  const auto pause_began = std::chrono::steady_clock::now();  // training ends here until the next step
  step_.training_paused(pause_began);
  if (scheduler_.evaluates_at(step, epoch_end)) {
    nlohmann::json e;
    try {
      e = evaluate();
    } catch (const MetricCommandError& error) {
      // The step trained: its checkpoint keeps it, so a resume after the
      // command is fixed goes on from here (without this evaluation).
      end_epoch_if(epoch_end);
      if (save_checkpoint().empty()) throw;
      Diagnostic d = error.diagnostic();
      const std::string run = std::filesystem::path(config_.checkpoints_dir).parent_path().string();
      d.hint += fmt::format("; step {} is checkpointed: fix the command, then continue with: runner resume {}",
                            step, run);
      throw MetricCommandError(d);
    }
    scheduler_.record_eval(e);
    events_.emit(e);
  }
  end_epoch_if(epoch_end);
  if (scheduler_.checkpoint_after(step, epoch_end, std::chrono::steady_clock::now())) save_checkpoint();
  if (checkpointer_)
    for (const CheckpointWritten& w : checkpointer_->take_finished()) events_.emit(w.event());
  step_.pause_ended(std::chrono::steady_clock::now() - pause_began);
}

void Trainer::end_epoch_if(bool epoch_end) {
  if (!epoch_end) return;
  ++state_.epoch;
  state_.batch_in_epoch = 0;
}

TrainOutcome Trainer::outcome() const {
  TrainOutcome out;
  out.status = scheduler_.stopped_early() ? TrainStatus::EarlyStopped : TrainStatus::Completed;
  if (!scheduler_.stopped_early() && scheduler_.stops_at(state_.global_step)) out.status = TrainStatus::Stopped;
  if (int sig = scheduler_.interrupt()) {
    out.status = TrainStatus::Interrupted;
    out.signal = sig;
  }
  out.last_eval = scheduler_.last_eval();
  const BestMetricState& best = scheduler_.best();
  if (best.has_best) out.best = {{"value", best.value}, {"step", best.step}, {"checkpoint", best.checkpoint}};
  out.global_step = state_.global_step;
  out.samples = state_.samples_seen;
  out.train_seconds = scheduler_.seconds_since_start(std::chrono::steady_clock::now());
  if (checkpointer_) out.checkpoints = checkpointer_->totals().json();
  return out;
}

}  // namespace runner
