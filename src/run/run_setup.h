// The pieces a training session is assembled from: process settings (threads,
// determinism, device), the loggers, the model, optimizer and schedule the
// recipe names, and the test hooks that kill a run at a chosen point.
#pragma once

#include "optim/optimizer.h"
#include "run/logger.h"
#include "run/run_dir.h"
#include "train/checkpoint_io.h"
#include "train/trainer.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace runner {

// Every CPU this process may run on (sched_getaffinity), at least 1.
int usable_cpus();
// Sets LibTorch's intra-op threads to run.threads, or usable_cpus() when 0;
// returns the count.
int apply_thread_setting(const nlohmann::json& run_section);
// run.deterministic: LibTorch's deterministic algorithms only.
void apply_determinism(const nlohmann::json& run_section);
// run.device: "cpu", "cuda", or "auto" (CUDA when available).
torch::Device pick_device(const nlohmann::json& run_section);

// The run's loggers: run.loggers, plus "jsonl" (metrics.jsonl) and "text"
// (train.log), which every run directory has.
class RunLoggers {
 public:
  RunLoggers(const nlohmann::json& run_section, const RunPaths& paths, bool append);
  RunLoggers() = default;  // none: the ranks other than 0 of a data-parallel run
  void add(Logger* extra) { all_.push_back(extra); }
  void emit(const nlohmann::json& event) const;
  const std::vector<Logger*>& all() const { return all_; }

 private:
  std::vector<std::unique_ptr<Logger>> owned_;
  std::vector<Logger*> all_;
};

// Watches the trainer's per-step heartbeat; carries the test hooks (see
// run_training.h): a SIGKILL after a given step, or inside a checkpoint write.
class StepWatch : public Logger {
 public:
  StepWatch();
  void log(const nlohmann::json& event) override;
  long long step() const { return step_; }
  // The checkpoint write hook for the trainer (a no-op unless the env var is set).
  CheckpointWriteHook checkpoint_hook() const;

 private:
  long long step_ = 0;
  long long kill_at_step_ = -1;
  long long term_at_step_ = -1;
  long long kill_in_checkpoint_step_ = -1;
  std::string kill_in_checkpoint_file_;
};

// The parameters in Hugging Face order, as the optimizer wants them.
std::vector<NamedParameter> named_parameters(SequenceClassifier& model);
std::unique_ptr<Optimizer> make_optimizer(const nlohmann::json& optimizer_section,
                                          SequenceClassifier& model);
Trainer::ScheduleMaker make_schedule(const nlohmann::json& scheduler_section, double base_lr);

// A warning for the start of the run when bf16 runs emulated on this CPU; empty otherwise.
std::string bf16_warning(const std::string& precision, const torch::Device& device);

}  // namespace runner
