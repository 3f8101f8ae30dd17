// The pieces a training session is assembled from: process settings (threads,
// determinism, device), the loggers, and the optimizer and schedule the recipe names.
#pragma once

#include "optim/optimizer.h"
#include "train/logger.h"
#include "run/run_dir.h"
#include "run/run_options.h"
#include "train/trainer.h"
#include "util/cpu_info.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace runner {

// Sets LibTorch's intra-op threads to run.threads, or usable_cpus() when 0,
// at most usable_cpus() (validate warned about more); returns the count.
int apply_thread_setting(const RunSettings& run);
// How many of those threads at::parallel_for gives the runner's own loops
// (packed attention, fused AdamW, dropout): all of them in a build compiled
// with OpenMP, one in a build without (its pragma is then ignored).
int own_loop_threads();
// run.deterministic: LibTorch's deterministic algorithms only.
void apply_determinism(const RunSettings& run);
// run.device: "cpu", "cuda", or "auto" (CUDA when available).
torch::Device pick_device(const RunSettings& run);

// The run's loggers: run.loggers, plus "jsonl" (metrics.jsonl) and "text"
// (train.log), which every run directory has. Every event passes here and is
// stamped once, so that all loggers agree: wall_time (Unix seconds, what
// TensorBoard records) and elapsed_s (the run's wall seconds, its earlier
// sessions included, as summary.json's total_wall_seconds counts them).
class RunLoggers : public Logger {
 public:
  RunLoggers(const RunSettings& run, const RunPaths& paths, bool append, double elapsed_before);
  explicit RunLoggers(double elapsed_before = 0.0);  // none: the ranks other than 0 of a data-parallel run
  void add(Logger* extra) { all_.push_back(extra); }
  void log(const nlohmann::json& event) override;
  void emit(const nlohmann::json& event) { log(event); }
  // Whether the "console" logger shows the events (a warning need not be printed apart).
  bool shows_console() const { return shows_console_; }

 private:
  std::vector<std::unique_ptr<Logger>> owned_;
  std::vector<Logger*> all_;
  double elapsed_before_ = 0.0;
  bool shows_console_ = false;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

// The parameters that train (requires_grad), in Hugging Face order, as the
// optimizer and data parallelism want them.
std::vector<NamedParameter> named_parameters(TaskModel& model);
std::unique_ptr<Optimizer> make_optimizer(const nlohmann::json& optimizer_section,
                                          TaskModel& model);
Trainer::ScheduleMaker make_schedule(const nlohmann::json& scheduler_section, double base_lr);

// A warning for the start of the run when bf16 runs emulated on this CPU; empty otherwise.
std::string bf16_warning(Precision precision, const torch::Device& device);

}  // namespace runner
