#include "train/checkpointer.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace runner {
namespace {

using WriterClock = std::chrono::steady_clock;

double writer_seconds_since(WriterClock::time_point t) {
  return std::chrono::duration<double>(WriterClock::now() - t).count();
}

// Thrown inside the writer, at a file boundary, when the run abandons the write.
struct WriteAbandoned : std::runtime_error {
  WriteAbandoned() : std::runtime_error("checkpoint write abandoned") {}
};

}  // namespace

struct Checkpointer::Job {
  TrainingState state;  // host copies of the tensors
  std::string name, best;
  CheckpointWritten written;
  std::exception_ptr failure;
  bool abandoned = false;
  std::mutex mutex;  // with `ended`: finalize() waits on it with a timeout
  std::condition_variable ended;
};

nlohmann::json CheckpointTaken::event() const {
  return {{"event", "checkpoint"}, {"step", step}, {"path", path}, {"stall_s", stall_s}, {"wait_s", wait_s}};
}

nlohmann::json CheckpointWritten::event() const {
  return {{"event", "checkpoint_written"}, {"step", step}, {"path", path}, {"removed", removed},
          {"write_s", write_s}};
}

nlohmann::json CheckpointTotals::json() const {
  return {{"taken", taken}, {"written", written}, {"stall_s", stall_s}, {"wait_s", wait_s},
          {"write_s", write_s}};
}

std::string checkpoint_end_name(CheckpointEnd end) {
  switch (end) {
    case CheckpointEnd::Idle: return "none in flight";
    case CheckpointEnd::Finished: return "finished";
    case CheckpointEnd::Abandoned: return "abandoned";
    case CheckpointEnd::Failed: return "failed";
  }
  return "unknown";
}

Checkpointer::Checkpointer(std::string checkpoints_dir, long long keep_last, CheckpointWriteHook hook)
    : dir_(std::move(checkpoints_dir)), keep_last_(keep_last), hook_(std::move(hook)) {}

Checkpointer::~Checkpointer() {
  if (thread_.joinable()) thread_.join();
}

// The only part of a checkpoint the loop waits for. The buffers outlive the
// write that reads them: the next copy into them comes after that write ended.
TrainingState Checkpointer::host_copy(const TrainingState& state) {
  TrainingState out = state;  // scalars; the generator states are fresh host tensors already
  auto copy_all = [this](const char* prefix, TensorMap& tensors) {
    for (auto& [name, t] : tensors) {
      torch::Tensor& buffer = buffers_[prefix + name];
      if (!buffer.defined() || buffer.sizes() != t.sizes() || buffer.scalar_type() != t.scalar_type())
        buffer = torch::empty(t.sizes(),
                              torch::TensorOptions().dtype(t.scalar_type()).pinned_memory(t.is_cuda()));
      buffer.copy_(t.detach());
      t = buffer;
    }
  };
  copy_all("model/", out.model);
  copy_all("optimizer/", out.optimizer);
  return out;
}

CheckpointTaken Checkpointer::save(const TrainingState& state, const std::string& best) {
  const WriterClock::time_point began = WriterClock::now();
  join();
  CheckpointTaken taken{state.global_step, dir_ + "/" + checkpoint_name(state.global_step)};
  taken.wait_s = writer_seconds_since(began);
  auto job = std::make_unique<Job>();
  job->state = host_copy(state);
  job->name = checkpoint_name(state.global_step);
  job->best = best;
  taken.stall_s = writer_seconds_since(began);
  ++totals_.taken;
  totals_.stall_s += taken.stall_s;
  totals_.wait_s += taken.wait_s;
  job_ = std::move(job);
  done_ = false;
  abandon_ = false;
  thread_ = std::thread([this, job = job_.get()] { write(*job); });
  return taken;
}

void Checkpointer::write(Job& job) {
  const WriterClock::time_point began = WriterClock::now();
  auto hook = [this](const std::string& checkpoint, const std::string& file) {
    if (abandon_) throw WriteAbandoned();
    if (hook_) hook_(checkpoint, file);
  };
  try {
    std::string path = write_checkpoint(dir_, job.name, encode_training_state(job.state), hook);
    std::string best = job.best.empty() ? std::string() : dir_ + "/" + job.best;
    job.written = {job.state.global_step, path, prune_checkpoints(dir_, keep_last_, best, path), 0.0};
  } catch (const WriteAbandoned&) {
    job.abandoned = true;
  } catch (...) {
    job.failure = std::current_exception();
  }
  job.written.write_s = writer_seconds_since(began);
  std::lock_guard<std::mutex> lock(job.mutex);
  done_ = true;
  job.ended.notify_all();
}

void Checkpointer::join() {
  if (!thread_.joinable()) return;
  thread_.join();
  Job& job = *job_;
  if (job.failure) failure_ = job.failure;
  if (!job.failure && !job.abandoned) {
    finished_.push_back(job.written);
    ++totals_.written;
    totals_.write_s += job.written.write_s;
  }
  job_.reset();
}

std::vector<CheckpointWritten> Checkpointer::take_finished() {
  if (done_) join();
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
  return std::exchange(finished_, {});
}

Checkpointer::Final Checkpointer::finalize(const std::function<bool()>& abandon) {
  Final f;
  if (thread_.joinable()) {
    Job& job = *job_;
    std::unique_lock<std::mutex> lock(job.mutex);
    while (!job.ended.wait_for(lock, std::chrono::milliseconds(100), [this] { return done_.load(); }))
      if (abandon && abandon()) abandon_ = true;
    lock.unlock();
    f.end = job.abandoned ? CheckpointEnd::Abandoned
                          : job.failure ? CheckpointEnd::Failed : CheckpointEnd::Finished;
    join();
  }
  f.written = std::exchange(finished_, {});
  f.failure = std::exchange(failure_, nullptr);
  return f;
}

}  // namespace runner
