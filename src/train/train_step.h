// The optimizer step: forward, backward and update of each window of
// micro-batches, eager or in a CUDA graph replay (train/step_graphs.h), under
// autocast in the training precision, with loss scaling, clipping and the NaN
// policy; and the device-side bookkeeping of the window and the log interval.
//
// A step never reads a value back from the device (on a GPU, each read waits
// for the card): losses, non-finite flags, the gradient norm, the loss scale
// and the schedule's position stay there, and a non-finite window is skipped
// there. settle() reads them all at once, where the training scheduler says
// the host needs them. Under data parallelism the ranks agree on every window
// on the host instead.
#pragma once

#include "model/model.h"
#include "optim/loss_scaler.h"
#include "optim/optimizer.h"
#include "optim/scheduler.h"
#include "train/batch_source.h"
#include "train/device_schedule.h"
#include "train/log_interval.h"
#include "train/logger.h"
#include "train/parallel.h"
#include "train/step_graphs.h"
#include "train/train_options.h"
#include "train/training_scheduler.h"
#include "train/training_state.h"
#include "util/diagnostic.h"

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace runner {

// Test hooks inside the optimizer step, filled by run/test_hooks.h from the
// environment (the data-parallel equivalence tests): `loss_factor` multiplies
// this process's loss before its backward, so its gradients too; `before_update`
// sees the gradients the optimizer is about to step with (after the exchange and
// clipping), the step's number and its learning rate. Unset, they cost nothing.
struct StepProbe {
  double loss_factor = 1.0;
  std::function<void(long long step, const std::vector<NamedParameter>& params, double lr)> before_update;
};

class TrainStep {
 public:
  using ScheduleMaker = std::function<LrMultiplier(long long total_steps)>;
  // Advances `state`'s step, scheduler step and samples seen; asks `scheduler`
  // when a step logs (its gradient norm) and how often it settles.
  TrainStep(const TrainerConfig& config, std::shared_ptr<TaskModel> model,
            std::unique_ptr<Optimizer> optimizer, const ScheduleMaker& schedule,
            const TrainingScheduler& scheduler, TrainingState& state, const EventLog& events);

  void set_parallel(ParallelHooks* parallel) { parallel_ = parallel; }
  void set_probe(StepProbe probe) { probe_ = std::move(probe); }
  // Before the first update: the CUDA graphs (train.cuda_graphs) and the
  // schedule's table; the log interval's clock starts at `now`.
  void start(std::chrono::steady_clock::time_point now);
  // One micro-batch of a window of `window` micro-batches; `closes`: the
  // window's last, whose optimizer update follows. True when it made a step.
  bool update(const TrainBatch& batch, long long window, bool closes);
  // One read of everything the device holds since the last settle; a
  // non-finite loss found there is reported as train.nan_policy says.
  void settle();
  bool settled() const { return unsettled_steps_ == 0 && pending_.empty(); }
  long long unsettled_steps() const { return unsettled_steps_; }
  // The forward of a batch under autocast in the training precision (evaluation's too).
  ModelOutput forward(const ModelBatch& batch);

  // The "train" event of the interval that ends at this (settled) step, and a fresh interval.
  nlohmann::json take_log_event(long long total_steps);
  // The step's training ended at `t`; what follows until the next step (an
  // evaluation, a checkpoint) is not training.
  void training_paused(std::chrono::steady_clock::time_point t) { interval_.step_ended = t; }
  void pause_ended(std::chrono::steady_clock::duration d) { interval_.paused += d; }
  // The fresh interval's clock starts once the last one's event was logged at `t`.
  void log_written(std::chrono::steady_clock::time_point t) { interval_.since = interval_.step_ended = t; }

  // The optimizer's, the loss scale's and the log interval's part of `s`.
  void capture(TrainingState& s) const;
  // Continues from `s`, saved by `then` workers and resumed by `now`'s.
  void restore(const TrainingState& s, const BatchTopology& then, const BatchTopology& now);

 private:
  // A micro-batch whose loss has not been read back: what a NaN report names.
  struct PendingLoss {
    torch::Tensor loss;  // 0-d, on the device
    long long step = 0, epoch = 0, micro_batch = 0;
    std::vector<std::string> examples;
  };
  struct MicroLoss {
    torch::Tensor value, bad;  // 0-d on the device: the loss (float64) and "not finite"
  };
  struct UpdateResult {
    torch::Tensor skip, norm, lr;  // 0-d on the device; norm undefined when not measured
  };
  void start_graphs();
  void micro_step(const TrainBatch& batch, long long window);
  // `sum_tokens` > 0: the loss times that many tokens (a sum); else the loss over `window`.
  MicroLoss forward_backward(const ModelBatch& batch, long long window, long long sum_tokens);
  void divide_by_window_tokens();
  void count_micro_batch(const TrainBatch& batch);
  void record_loss(const MicroLoss& loss, const TrainBatch& batch, bool by_tokens);
  bool graphed_step(const TrainBatch& batch);
  void optimizer_step();
  UpdateResult apply_update(const torch::Tensor& skip, bool rank_skipped);
  void finish_step(const UpdateResult& r, bool any_rank_bad_loss);
  std::pair<bool, bool> agree_on_skip(const torch::Tensor& bad_grad);  // data parallelism's skip
  void add_to_interval(bool any_rank_bad_loss);
  torch::Tensor window_mean_loss();
  static bool is_token_batch(const TrainBatch& batch);
  void report_bad_loss(const PendingLoss& micro_batch, double loss);
  InputError nan_abort_error(const std::string& what) const;
  [[noreturn]] void throw_nan_abort();
  long long world() const { return parallel_ ? parallel_->world_size() : 1; }

  const TrainerConfig& config_;
  std::shared_ptr<TaskModel> model_;
  std::unique_ptr<Optimizer> optimizer_;
  const TrainingScheduler& scheduler_;
  TrainingState& state_;
  const EventLog& events_;
  ParallelHooks* parallel_ = nullptr;
  StepProbe probe_;
  torch::Device device_;  // where the model lives (autocast's device type), read once
  torch::Tensor loss_weights_;  // config.loss_weights on the device; undefined: unweighted
  LossScaler scaler_;
  DeviceSchedule schedule_;
  LogInterval interval_;
  // Sum of this window's finite micro-batch losses (unscaled, undivided); token
  // classification under accumulation sums each mean times its labelled tokens.
  torch::Tensor window_loss_;
  long long window_micro_ = 0;
  // Token classification under accumulation: the window's labelled tokens so far,
  // for the gradients (reset by the update) and for the logged loss.
  long long window_tokens_ = 0;
  long long window_loss_tokens_ = 0;
  bool window_by_tokens_ = false;  // the same on every rank: the task and window decide it
  torch::Tensor window_bad_;  // 0-d bool: a micro-batch of this window had a non-finite loss
  std::vector<PendingLoss> pending_;  // micro-batch losses not read back yet
  std::unique_ptr<StepGraphs> graphs_;  // train.cuda_graphs; null: every step eager
  long long unsettled_steps_ = 0;
  // nan_policy "abort" under data parallelism: this rank's NaN report, raised
  // once every rank has agreed on the window (so no rank waits on a dead one).
  std::string nan_abort_;
};

}  // namespace runner
