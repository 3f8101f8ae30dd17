// Test hooks of a training run, read from the environment (for the
// kill-and-resume tests), in one place so that nothing else reads them:
//   RUNNER_TEST_KILL_AT_STEP=N            SIGKILL itself when optimizer step N ends,
//                                         before that step's evaluation and checkpoint,
//                                         once the checkpoint saved last is on disk (so
//                                         a test knows where the resume starts), unless
//                                         PAUSE_IN_CHECKPOINT holds that write;
//                                         N1,N2,...: step Nk+1 in the k-th restart by
//                                         `runner launch --max-restarts` (RUNNER_RESTART_COUNT)
//   RUNNER_TEST_KILL_IN_CHECKPOINT=N:FILE SIGKILL itself while writing the checkpoint
//                                         of step N, just before FILE (e.g. model.safetensors)
//   RUNNER_TEST_PAUSE_IN_CHECKPOINT=N:FILE:MS  the background writer of the checkpoint of
//                                         step N sleeps MS ms just before FILE, so that a
//                                         test can kill the process while that write is
//                                         in flight and the loop has gone on
//   RUNNER_TEST_TERM_AT_STEP=N            send itself SIGTERM when optimizer step N ends
//   RUNNER_TEST_KILL_RANK=R               with KILL_AT_STEP: only the worker with RANK=R
//   RUNNER_TEST_STEP_PAUSE_MS=N           sleep N ms when each optimizer step ends, so that
//                                         a tiny model's run lasts long enough for a test to
//                                         act during it (stop a tracking server)
//   RUNNER_TEST_GRADIENT_DIR=DIR          rank 0 writes the gradients each optimizer step
//                                         updates with to DIR/step-N.safetensors (the
//                                         parameters' names, and "@lr": the step's rate)
//   RUNNER_TEST_GRADIENT_SCALE=R:F        the worker with RANK=R multiplies its loss, so
//                                         its gradients, by F (a deliberate mutation)
#pragma once

#include "train/checkpoint_io.h"
#include "train/logger.h"
#include "train/train_step.h"

namespace runner {

// A place inside one checkpoint's write: the checkpoint of step N, before FILE.
struct CheckpointPlace {
  long long step = -1;  // -1: nowhere
  std::string file;
  long long pause_ms = 0;
  bool at(const std::string& checkpoint, const std::string& file) const;
};

// Watches the trainer's per-step heartbeat and carries the hooks above: a
// SIGKILL after a given step, or inside a checkpoint write.
class StepWatch : public Logger {
 public:
  StepWatch();
  void log(const nlohmann::json& event) override;
  long long step() const { return step_; }
  // The checkpoint write hook for the trainer (a no-op unless the env var is set).
  CheckpointWriteHook checkpoint_hook() const;
  // The optimizer step's hooks for the trainer (no-ops unless the env vars are set).
  StepProbe step_probe() const;

 private:
  long long step_ = 0;
  long long kill_at_step_ = -1;
  long long term_at_step_ = -1;
  long long step_pause_ms_ = 0;
  long long saved_step_ = -1;  // the step and path of the last "checkpoint" event
  std::string saved_path_;
  CheckpointPlace kill_in_checkpoint_, pause_in_checkpoint_;
};

}  // namespace runner
