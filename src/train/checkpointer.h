// Snapshot in, verified checkpoint directory out. save() blocks the training
// loop only to copy the state's tensors into host buffers that it keeps from one
// save to the next (page-locked on a GPU, so the copy runs at the bus's speed);
// a background thread then encodes them, writes each file while hashing its
// bytes (train/checkpoint_io.h), writes the manifest last, renames the directory
// into place, fsyncs its parent and prunes older checkpoints without reading the
// new one back. At most one write is in flight: the next save waits for it, and
// that wait is part of the save's stall. A run ends through finalize(), which
// finishes the write in flight or abandons it and says which.
#pragma once

#include "train/checkpoint_io.h"
#include "train/training_state.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace runner {

// What the loop paid for one save: the "checkpoint" event.
struct CheckpointTaken {
  long long step = 0;
  std::string path;     // where the checkpoint will be once written
  double wait_s = 0.0;  // waiting for the previous write to finish
  double stall_s = 0.0; // the loop blocked in all: the wait and the copy to host memory
  nlohmann::json event() const;
};

// A write the background thread finished: the "checkpoint_written" event.
struct CheckpointWritten {
  long long step = 0;
  std::string path;
  std::vector<std::string> removed;  // older checkpoints pruned after it
  double write_s = 0.0;              // encode, hash, write, fsync, rename, prune
  nlohmann::json event() const;
};

// The run's sums, for summary.json.
struct CheckpointTotals {
  long long taken = 0, written = 0;
  double stall_s = 0.0, wait_s = 0.0, write_s = 0.0;
  nlohmann::json json() const;
};

// How finalize() left the write that was in flight.
enum class CheckpointEnd { Idle, Finished, Abandoned, Failed };
std::string checkpoint_end_name(CheckpointEnd end);  // "none in flight", "finished", ...

class Checkpointer {
 public:
  Checkpointer(std::string checkpoints_dir, long long keep_last, CheckpointWriteHook hook = {});
  ~Checkpointer();  // waits for a write in flight: its snapshot is a consistent state
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  // Takes the snapshot of `state` (its tensors may live on the device and keep
  // changing after the call) and hands it to the writer. `best` is the directory
  // name of the best checkpoint, which pruning keeps; "" when there is none.
  // Rethrows the failure of the previous write.
  CheckpointTaken save(const TrainingState& state, const std::string& best);
  // The writes finished since the last call, without waiting; rethrows a write's
  // failure (the temporary directory is gone, older checkpoints are untouched).
  std::vector<CheckpointWritten> take_finished();
  struct Final {
    CheckpointEnd end = CheckpointEnd::Idle;
    std::vector<CheckpointWritten> written;
    std::exception_ptr failure;  // the write's own error, for End::Failed
  };
  // Waits for the write in flight; while `abandon()` says so (polled every
  // 100 ms) the writer stops before its next file and removes its temporary
  // directory instead. Never throws: the caller decides what a failure means.
  Final finalize(const std::function<bool()>& abandon = {});
  const CheckpointTotals& totals() const { return totals_; }

 private:
  struct Job;
  TrainingState host_copy(const TrainingState& state);
  void write(Job& job);
  void join();  // waits for the thread and takes its result into finished_

  std::string dir_;
  long long keep_last_;
  CheckpointWriteHook hook_;
  std::map<std::string, torch::Tensor> buffers_;  // host copies, reused while shapes stay
  std::unique_ptr<Job> job_;  // the write in flight, or the one just finished
  std::thread thread_;
  std::atomic<bool> done_{false}, abandon_{false};
  std::vector<CheckpointWritten> finished_;
  std::exception_ptr failure_;
  CheckpointTotals totals_;
};

}  // namespace runner
