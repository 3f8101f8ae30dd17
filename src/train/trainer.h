// The training engine. Lifecycle: construct (setup), optionally resume(),
// train(), then the caller saves the final model and cleans up. One optimizer
// step = one window of grad_accum micro-batches (the last window of an epoch may
// be shorter); the loss is divided by the window's actual size.
//
// The trainer is the loop alone, in the shape of Marian's: the
// TrainingScheduler (train/training_scheduler.h) says whether to keep going
// and what follows each step (settle, log, evaluate, checkpoint), the
// TrainStep (train/train_step.h) makes the step and settles, the Checkpointer
// writes what the trainer captures, and TrainingState is what a resume
// continues from.
#pragma once

#include "train/batch_source.h"
#include "train/checkpointer.h"
#include "train/logger.h"
#include "train/parallel.h"
#include "train/train_options.h"
#include "train/train_step.h"
#include "train/training_scheduler.h"
#include "train/training_state.h"

#include <memory>
#include <string>
#include <vector>

namespace runner {

// Stopped: ended at the configuration's stop_at_step, before the schedule's end.
enum class TrainStatus { Completed, Interrupted, EarlyStopped, Stopped };

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
  using ScheduleMaker = TrainStep::ScheduleMaker;
  Trainer(TrainerConfig config, std::shared_ptr<TaskModel> model,
          std::unique_ptr<Optimizer> optimizer, ScheduleMaker schedule, BatchSource& data,
          const EvalSet* eval, std::vector<Logger*> loggers);
  // The scheduler and the step keep references into the trainer: it stays where it was built.
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  long long total_steps() const { return scheduler_.total_steps(); }
  long long global_step() const { return state_.global_step; }
  long long steps_per_epoch() const;
  // Continues from a saved state (model, optimizer, RNG, position ...) at `at`,
  // its place under this run's split of the global batch (another number of
  // workers when the global batch is the same), as the resume plan checked it.
  void resume(const TrainingState& state, const ResumePosition& at);
  TrainOutcome train();
  // Evaluates now and returns the event ({"event": "eval", "loss": ..., metrics}).
  nlohmann::json evaluate();
  TrainingState capture_state() const;
  // Takes the checkpoint of the current step, written in the background; returns
  // the path it will have, empty if checkpoints are off.
  std::string save_checkpoint();
  // Test hook passed to write_checkpoint.
  void set_checkpoint_hook(CheckpointWriteHook hook) { checkpoint_hook_ = std::move(hook); }
  // Test hooks inside each optimizer step (train_step.h).
  void set_step_probe(StepProbe probe) { step_.set_probe(std::move(probe)); }
  // Data parallelism (parallel/); without it the trainer runs alone. Not owned.
  void set_parallel(ParallelHooks* parallel);

 private:
  void run_epoch();
  // What follows an optimizer step, as the scheduler says.
  void after_step(bool epoch_end);
  TrainingState live_state() const;  // the tensors as they are, not copied
  TrainOutcome outcome() const;
  // One evaluation set's loss and metrics (this rank's share gathered from all).
  // The metrics of `batches`; with `records`, each example's record for a metric command.
  void end_epoch_if(bool epoch_end);  // the next epoch starts after the epoch's last step
  nlohmann::json evaluate_batches(const std::vector<TrainBatch>& batches,
                                  std::vector<nlohmann::json>* records = nullptr);
  // train.metric_command's numbers for this evaluation (train/metric_command.h).
  nlohmann::json command_metrics(const std::vector<nlohmann::json>& records, const nlohmann::json& built_in);

  TrainerConfig config_;
  std::shared_ptr<TaskModel> model_;
  BatchSource& data_;
  const EvalSet* eval_;
  EventLog events_;
  TrainingState state_;  // the scalar progress; tensors are captured on demand
  TrainingScheduler scheduler_;
  TrainStep step_;
  ParallelHooks* parallel_ = nullptr;
  CheckpointWriteHook checkpoint_hook_;
  std::unique_ptr<Checkpointer> checkpointer_;  // on the rank that writes, from its first save
  // The frozen weights' sha256 when checkpoints hold only what trains; else empty.
  std::string base_sha256_;
};

}  // namespace runner
