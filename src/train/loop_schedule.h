// When the training loop logs, evaluates, checkpoints and settles (reads back
// what the device holds): the decisions that depend on the step, the
// configuration and the loop's clock only, in one place, so that the trainer
// asks "what happens at this step" instead of computing it at each use.
#pragma once

#include "train/train_options.h"

#include <chrono>

namespace runner {

class LoopSchedule {
 public:
  using Clock = std::chrono::steady_clock;
  LoopSchedule(const TrainerConfig& config, bool evaluates, long long total_steps)
      : config_(config), evaluates_(evaluates), total_steps_(total_steps) {}

  long long total_steps() const { return total_steps_; }
  bool last(long long step) const { return step >= total_steps_; }
  // Does optimizer step `step` end a log interval?
  bool logs_at(long long step) const;
  // train.eval_every's steps and the last one (whose evaluation competes for best).
  bool evaluates_at(long long step) const;
  bool evaluates_at_epoch_end() const { return evaluates_ && config_.eval_each_epoch; }
  // train.checkpoint_every's steps.
  bool checkpoints_at(long long step) const;
  // train.checkpoint_every_minutes since the last checkpoint (or since start()).
  bool checkpoint_due(Clock::time_point now) const;
  void started(Clock::time_point now) { last_checkpoint_ = now; }
  void checkpoint_taken(Clock::time_point now) { last_checkpoint_ = now; }
  // Log steps come every log_every steps; other settles only come sooner, and
  // at least every 1000 steps (the device's table of learning rates).
  long long settle_capacity() const;
  // Where the host needs what only the device knows: a log line, an evaluation
  // (its checkpoint of a new best), a checkpoint, the end; and often enough
  // that the schedule's table never runs out. `ending`: the run stops here.
  bool settles_at(long long step, bool epoch_end, bool ending, long long unsettled) const;

 private:
  const TrainerConfig& config_;
  bool evaluates_;
  long long total_steps_;
  Clock::time_point last_checkpoint_ = Clock::now();
};

}  // namespace runner
