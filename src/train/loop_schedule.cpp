#include "train/loop_schedule.h"

#include <algorithm>

namespace runner {

bool LoopSchedule::logs_at(long long step) const {
  return step % config_.log_every == 0 || step == total_steps_;
}

bool LoopSchedule::evaluates_at(long long step) const {
  return evaluates_ && ((config_.eval_every > 0 && step % config_.eval_every == 0) || last(step));
}

bool LoopSchedule::checkpoints_at(long long step) const {
  return !config_.checkpoints_dir.empty() && config_.checkpoint_every > 0 && step % config_.checkpoint_every == 0;
}

bool LoopSchedule::checkpoint_due(Clock::time_point now) const {
  if (config_.checkpoint_every_minutes <= 0 || config_.checkpoints_dir.empty()) return false;
  return std::chrono::duration<double>(now - last_checkpoint_).count() >= config_.checkpoint_every_minutes * 60.0;
}

long long LoopSchedule::settle_capacity() const { return std::min<long long>(config_.log_every, 1000); }

bool LoopSchedule::settles_at(long long step, bool epoch_end, bool ending, long long unsettled) const {
  const bool evaluates = evaluates_ && ((config_.eval_every > 0 && step % config_.eval_every == 0) ||
                                        (epoch_end && config_.eval_each_epoch));
  const bool checkpoints = config_.checkpoint_every > 0 && step % config_.checkpoint_every == 0;
  return logs_at(step) || evaluates || checkpoints || last(step) || ending || unsettled >= settle_capacity();
}

}  // namespace runner
