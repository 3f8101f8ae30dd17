// The training engine. Lifecycle: construct (setup), optionally resume(),
// train(), then the caller saves the final model and cleans up. One optimizer
// step = one window of grad_accum micro-batches (the last window of an epoch may
// be shorter); the loss is divided by the window's actual size.
//
// A step never reads a value back from the device (on a GPU, each read waits
// for the card): losses, non-finite flags, the gradient norm, the loss scale
// and the schedule's position stay there, a non-finite window is skipped there,
// and the trainer *settles* -- reads them all at once -- only where it must:
// log, evaluation and checkpoint steps, the last step, and at least every
// 1000 steps. Under data parallelism the ranks agree on every window on the
// host, as before.
#pragma once

#include "optim/loss_scaler.h"
#include "optim/optimizer.h"
#include "optim/scheduler.h"
#include "train/logger.h"
#include "train/batch_source.h"
#include "train/batch_topology.h"
#include "train/checkpointer.h"
#include "train/device_schedule.h"
#include "train/loop_schedule.h"
#include "train/step_graphs.h"
#include "train/parallel.h"
#include "train/train_options.h"
#include "train/training_state.h"
#include "util/diagnostic.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace runner {

enum class TrainStatus { Completed, Interrupted, EarlyStopped };

struct TrainOutcome {
  TrainStatus status = TrainStatus::Completed;
  int signal = 0;                   // for Interrupted
  nlohmann::json last_eval;         // the last evaluation's event, or null
  nlohmann::json best;              // best metric, step and checkpoint, or null
  long long global_step = 0;
  long long samples = 0;
  double train_seconds = 0.0;
  nlohmann::json checkpoints;       // CheckpointTotals::json(), or null without checkpoints
};

class Trainer {
 public:
  using ScheduleMaker = std::function<LrMultiplier(long long total_steps)>;
  Trainer(TrainerConfig config, std::shared_ptr<SequenceClassifier> model,
          std::unique_ptr<Optimizer> optimizer, ScheduleMaker schedule, BatchSource& data,
          const EvalSet* eval, std::vector<Logger*> loggers);

  long long total_steps() const { return total_steps_; }
  long long global_step() const { return state_.global_step; }
  long long steps_per_epoch() const;
  // Continues from a saved state (model, optimizer, RNG, position ...), also one
  // written by another number of workers when the global batch is the same.
  void resume(const TrainingState& state);
  TrainOutcome train();
  // Evaluates now and returns the event ({"event": "eval", "loss": ..., metrics}).
  nlohmann::json evaluate();
  TrainingState capture_state() const;
  // Takes the checkpoint of the current step, written in the background; returns
  // the path it will have, empty if checkpoints are off.
  std::string save_checkpoint();
  // Test hook passed to write_checkpoint.
  void set_checkpoint_hook(CheckpointWriteHook hook) { checkpoint_hook_ = std::move(hook); }
  // Data parallelism (dist/); without it the trainer runs alone. Not owned.
  void set_parallel(ParallelHooks* parallel);

 private:
  struct Interval;  // running sums between two log events
  // A micro-batch whose loss has not been read back: what a NaN report names.
  struct PendingLoss {
    torch::Tensor loss;  // 0-d, on the device
    long long step = 0, epoch = 0, micro_batch = 0;
    std::vector<std::string> examples;
  };
  std::pair<BatchTopology, BatchTopology> topologies(const TrainingState& s) const;
  void check_topology(const TrainingState& s, const BatchTopology& then, const BatchTopology& now) const;
  void check_progress(const TrainingState& s, long long position) const;
  bool finished() const;
  int interrupt() const;  // the stop signal, agreed by all ranks under data parallelism
  bool writes_files() const { return !parallel_ || parallel_->rank() == 0; }
  void run_epoch();
  long long window_size(long long batch_index) const;
  long long steps_for_epochs() const;
  ModelOutput forward(const ModelBatch& batch);  // under autocast in the training precision
  struct MicroLoss {
    torch::Tensor value, bad;  // 0-d on the device: the loss (float64) and "not finite"
  };
  struct UpdateResult {
    torch::Tensor skip, norm, lr;  // 0-d on the device; norm undefined when not measured
  };
  void micro_step(const TrainBatch& batch, long long window);
  MicroLoss forward_backward(const ModelBatch& batch, long long window);
  void count_micro_batch(const TrainBatch& batch);
  void record_loss(const MicroLoss& loss, const TrainBatch& batch);
  bool graphed_step(const TrainBatch& batch);
  void start_graphs();
  void optimizer_step();
  static torch::Tensor skip_flag(const torch::Tensor& window_bad, const torch::Tensor& bad_grad);
  UpdateResult apply_update(const torch::Tensor& skip, bool rank_skipped);
  void finish_step(const UpdateResult& r, bool any_rank_bad_loss);
  std::pair<bool, bool> agree_on_skip(const torch::Tensor& bad_grad);  // data parallelism's skip
  void add_to_interval(bool any_rank_bad_loss);
  void after_step(bool epoch_end);
  bool checkpoint_due_by_time(long long step);
  void settle();
  void report_bad_loss(const PendingLoss& micro_batch, double loss);
  std::string best_metric_name() const;
  InputError nan_abort_error(const std::string& what) const;
  [[noreturn]] void throw_nan_abort();
  void log_interval();
  void maybe_evaluate(bool epoch_end);
  void record_eval(nlohmann::json& event);
  void emit(const nlohmann::json& event);
  TrainingState live_state() const;  // the tensors as they are, not copied
  nlohmann::json interval_record() const;  // the log interval's sums, for a checkpoint
  void restore_interval(const nlohmann::json& record, const BatchTopology& then, const BatchTopology& now);
  void report_written_checkpoints();
  // Finishes or abandons the write in flight as the run ends (`failed`: by an
  // error, which the caller rethrows) and says which.
  void end_checkpoints(bool failed);

  TrainerConfig config_;
  std::shared_ptr<SequenceClassifier> model_;
  std::unique_ptr<Optimizer> optimizer_;
  DeviceSchedule schedule_;
  BatchSource& data_;
  const EvalSet* eval_;
  std::vector<Logger*> loggers_;
  LossScaler scaler_;
  TrainingState state_;  // the scalar progress; tensors are captured on demand
  long long total_steps_ = 0;
  LoopSchedule loop_;  // when to settle, log, evaluate and checkpoint
  std::shared_ptr<Interval> interval_;
  torch::Device device_;        // where the model lives (autocast's device type), read once
  torch::Tensor window_loss_;   // sum of this window's finite micro-batch losses (unscaled, undivided)
  long long window_micro_ = 0;
  torch::Tensor window_bad_;    // 0-d bool: a micro-batch of this window had a non-finite loss
  std::vector<PendingLoss> pending_;  // micro-batch losses not read back yet
  std::unique_ptr<StepGraphs> graphs_;  // train.cuda_graphs; null: every step eager
  long long unsettled_steps_ = 0;
  // nan_policy "abort" under data parallelism: this rank's NaN report, raised
  // once every rank has agreed on the window (so no rank waits on a dead one).
  std::string nan_abort_;
  bool stop_early_ = false;
  bool save_best_ = false;
  nlohmann::json last_eval_;
  CheckpointWriteHook checkpoint_hook_;
  std::unique_ptr<Checkpointer> checkpointer_;  // on the rank that writes, from its first save
  ParallelHooks* parallel_ = nullptr;
  int interrupt_ = 0;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace runner
