// Every "when" of the training loop, in one place: whether it keeps going (the
// steps left, early stopping, a stop signal), and after each optimizer step
// whether it settles (reads back what the device holds), logs, evaluates and
// checkpoints (by steps or by time). It also judges each evaluation: the best
// metric and early stopping. The trainer asks and acts; it decides nothing.
//
// Under data parallelism the ranks must take every decision together: a stop
// signal and a timed checkpoint are agreed through RankAgreement; every other
// rule depends only on the step and the configuration, the same on each rank.
// Torch-free.
#pragma once

#include "train/best_metric.h"
#include "train/train_options.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace runner {

// What the ranks agree on, each a collective every rank calls at the same
// point; both empty when the trainer runs alone.
struct RankAgreement {
  std::function<int(int)> largest_signal;  // the largest stop signal any rank received
  std::function<bool(bool)> any_rank;      // true when the flag is true on some rank
};

class TrainingScheduler {
 public:
  using Clock = std::chrono::steady_clock;
  // `eval_metrics`: the eval set's metric names; null when nothing is evaluated.
  TrainingScheduler(const TrainerConfig& config, long long total_steps,
                    const std::vector<std::string>* eval_metrics);

  void set_agreement(RankAgreement agreement) { agreement_ = std::move(agreement); }
  long long total_steps() const { return total_steps_; }

  // Keep going: steps left, no early stop, no stop signal.
  bool keep_going(long long step) const { return !ending(step); }
  // The run stops after `step`: its last step, an early stop or a stop signal.
  bool ending(long long step) const {
    return step >= total_steps_ || stops_at(step) || stopped_early_ || interrupt() != 0;
  }
  // Whether train's stop_at_step ends the run at `step`, before its schedule's end.
  bool stops_at(long long step) const {
    return config_.stop_at_step > 0 && step >= config_.stop_at_step && step < total_steps_;
  }
  bool stopped_early() const { return stopped_early_; }
  // The stop signal, 0 if none: as the ranks last agreed under data parallelism.
  int interrupt() const;
  // Called by every rank after each optimizer step: the ranks agree on a signal.
  void agree_on_interrupt();

  // Does optimizer step `step` end a log interval? Every log_every steps and the last.
  bool logs_at(long long step) const;
  // train.eval_every's steps and the last one (whose evaluation competes for
  // best), an epoch's end under train.eval_each_epoch, and the stop step (a
  // search ranks the run by it); never twice at a step.
  bool evaluates_at(long long step, bool epoch_end) const;
  // train.checkpoint_every's steps, and an epoch's end under
  // train.checkpoint_each_epoch, with a checkpoint folder.
  bool checkpoints_at(long long step, bool epoch_end) const;
  // train.checkpoint_every_minutes since the last checkpoint (or the start). Under
  // data parallelism the ranks' clocks differ: they agree at log steps.
  bool checkpoint_due_by_time(long long step, Clock::time_point now) const;
  // Whether step `step` ends with a checkpoint: by steps, by time, the run's
  // end, or a new best; forgets the new best it reports.
  bool checkpoint_after(long long step, bool epoch_end, Clock::time_point now);
  // Where the host needs what only the device knows: wherever one of the rules
  // above acts, and often enough (`unsettled` steps since the last settle) that
  // the device's table of learning rates never runs out.
  bool settles_at(long long step, bool epoch_end, long long unsettled) const;
  // Log steps come every log_every steps; other settles only come sooner, and
  // at least every 1000 steps.
  long long settle_capacity() const;

  void started(Clock::time_point now) { started_ = last_checkpoint_ = now; }
  double seconds_since_start(Clock::time_point now) const;
  void checkpoint_taken(Clock::time_point now) { last_checkpoint_ = now; }

  // Judges an evaluation event ({"step": ..., metrics}): a new best marks it
  // "is_best" and asks for a checkpoint at its step; patience evaluations
  // without one mark it "early_stop" and end the run.
  void record_eval(nlohmann::json& event);
  const nlohmann::json& last_eval() const { return last_eval_; }  // null before the first
  const BestMetricState& best() const { return best_; }
  void restore_best(const BestMetricState& best) { best_ = best; }
  // The metric compared: train.metric_for_best without "eval.", else the eval set's first.
  const std::string& best_metric() const { return best_metric_; }

 private:
  bool evaluates_;
  const TrainerConfig& config_;
  long long total_steps_;
  std::string best_metric_;
  RankAgreement agreement_;
  int agreed_signal_ = 0;
  bool stopped_early_ = false;
  bool new_best_ = false;
  BestMetricState best_;
  nlohmann::json last_eval_;
  Clock::time_point started_ = Clock::now(), last_checkpoint_ = started_;
};

}  // namespace runner
