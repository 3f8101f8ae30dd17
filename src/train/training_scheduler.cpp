#include "train/training_scheduler.h"
#include "train/checkpoint_io.h"
#include "train/interrupt.h"

#include <algorithm>

namespace runner {

namespace {

std::string metric_compared(const TrainerConfig& config, const std::vector<std::string>* eval_metrics) {
  std::string m = config.metric_for_best;
  if (m.rfind("eval.", 0) == 0) m = m.substr(5);
  if (m.empty() && eval_metrics && !eval_metrics->empty()) m = eval_metrics->front();
  return m;
}

}  // namespace

TrainingScheduler::TrainingScheduler(const TrainerConfig& config, long long total_steps,
                                     const std::vector<std::string>* eval_metrics)
    : evaluates_(eval_metrics != nullptr),
      config_(config),
      total_steps_(total_steps),
      best_metric_(metric_compared(config, eval_metrics)) {}

int TrainingScheduler::interrupt() const {
  return agreement_.largest_signal ? agreed_signal_ : pending_interrupt();
}

void TrainingScheduler::agree_on_interrupt() {
  if (agreement_.largest_signal) agreed_signal_ = agreement_.largest_signal(pending_interrupt());
}

bool TrainingScheduler::logs_at(long long step) const {
  return step % config_.log_every == 0 || step == total_steps_;
}

bool TrainingScheduler::evaluates_at(long long step, bool epoch_end) const {
  if (!evaluates_ || (last_eval_.is_object() && last_eval_.value("step", -1LL) == step)) return false;
  return (config_.eval_every > 0 && step % config_.eval_every == 0) || step >= total_steps_ ||
         (epoch_end && config_.eval_each_epoch) || stops_at(step);
}

bool TrainingScheduler::checkpoints_at(long long step, bool epoch_end) const {
  if (config_.checkpoints_dir.empty()) return false;
  return (config_.checkpoint_every > 0 && step % config_.checkpoint_every == 0) ||
         (epoch_end && config_.checkpoint_each_epoch);
}

bool TrainingScheduler::checkpoint_due_by_time(long long step, Clock::time_point now) const {
  if (config_.checkpoint_every_minutes <= 0 || config_.checkpoints_dir.empty()) return false;
  const bool due =
      std::chrono::duration<double>(now - last_checkpoint_).count() >= config_.checkpoint_every_minutes * 60.0;
  if (!agreement_.any_rank) return due;
  return logs_at(step) && agreement_.any_rank(due);
}

bool TrainingScheduler::checkpoint_after(long long step, bool epoch_end, Clock::time_point now) {
  const bool periodic = checkpoints_at(step, epoch_end) || checkpoint_due_by_time(step, now);
  const bool due = periodic || ending(step) || new_best_;
  new_best_ = false;
  return due;
}

long long TrainingScheduler::settle_capacity() const { return std::min<long long>(config_.log_every, 1000); }

bool TrainingScheduler::settles_at(long long step, bool epoch_end, long long unsettled) const {
  return logs_at(step) || evaluates_at(step, epoch_end) || checkpoints_at(step, epoch_end) || ending(step) ||
         unsettled >= settle_capacity();
}

double TrainingScheduler::seconds_since_start(Clock::time_point now) const {
  return std::chrono::duration<double>(now - started_).count();
}

void TrainingScheduler::record_eval(nlohmann::json& e) {
  last_eval_ = e;
  if (!e.contains(best_metric_)) return;
  const double v = e[best_metric_];
  const long long step = e.value("step", 0LL);
  const bool better = !best_.has_best || (config_.greater_is_better ? v > best_.value : v < best_.value);
  if (better) {
    best_ = {true, v, step, checkpoint_name(step), 0};
    e["is_best"] = true;
    new_best_ = true;
  } else if (++best_.evals_without_improvement >= config_.early_stopping_patience &&
             config_.early_stopping_patience > 0) {
    stopped_early_ = true;
    e["early_stop"] = true;
  }
  last_eval_ = e;
}

}  // namespace runner
