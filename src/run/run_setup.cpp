#include "run/run_setup.h"

#include "optim/scheduler.h"
#include "registry/registry.h"
#include "train/autocast.h"

#include <fmt/format.h>

#include <ATen/Parallel.h>

#include <algorithm>
#include <sched.h>
#include <thread>

namespace runner {

int apply_thread_setting(const RunSettings& run) {
  // More threads than CPUs only take turns on them (the declared maximum keeps the cast safe).
  int n = static_cast<int>(std::min<long long>(run.threads, usable_cpus()));
  if (n <= 0) n = usable_cpus();
  at::set_num_threads(n);  // LibTorch 1.13 would otherwise use one thread
  return n;
}

int own_loop_threads() {
  const int64_t threads = at::get_num_threads();
  std::vector<char> used(threads, 0);  // each thread marks its own element
  at::parallel_for(0, threads, 1, [&](int64_t, int64_t) { used[at::get_thread_num()] = 1; });
  return static_cast<int>(std::count(used.begin(), used.end(), 1));
}

void apply_determinism(const RunSettings& run) {
  at::globalContext().setDeterministicAlgorithms(run.deterministic, false);
}

torch::Device pick_device(const RunSettings& run) {
  bool cuda = run.device == DeviceChoice::Cuda ||
              (run.device == DeviceChoice::Auto && torch::cuda::is_available());
  return cuda ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
}

RunLoggers::RunLoggers(const RunSettings& run, const RunPaths& paths, bool append, double elapsed_before)
    : elapsed_before_(elapsed_before) {
  std::vector<std::string> names = run.loggers;
  for (const char* always : {"jsonl", "text"})
    if (std::find(names.begin(), names.end(), always) == names.end()) names.push_back(always);
  LoggerContext ctx{paths.dir, append, run.name};
  shows_console_ = std::find(names.begin(), names.end(), "console") != names.end();
  for (const auto& name : names) {
    owned_.push_back(instantiate<LoggerFactory>(Kind::Logger, name, nlohmann::json::object(), ctx));
    all_.push_back(owned_.back().get());
  }
}

RunLoggers::RunLoggers(double elapsed_before) : elapsed_before_(elapsed_before) {}

void RunLoggers::log(const nlohmann::json& event) {
  nlohmann::json stamped = event;
  stamped["wall_time"] =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  stamped["elapsed_s"] =
      elapsed_before_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  for (Logger* l : all_) l->log(stamped);
}

std::vector<NamedParameter> named_parameters(TaskModel& model) {
  std::vector<NamedParameter> out;
  // A frozen parameter (a LoRA run's base weights) gets no gradient and no optimizer state.
  for (auto& p : model.named_parameters())
    if (p.value().requires_grad()) out.push_back({p.key(), p.value()});
  return out;
}

std::unique_ptr<Optimizer> make_optimizer(const nlohmann::json& section, TaskModel& model) {
  return instantiate<OptimizerFactory>(Kind::Optimizer, section.at("type").get<std::string>(),
                                       section, named_parameters(model));
}

Trainer::ScheduleMaker make_schedule(const nlohmann::json& section, double base_lr) {
  return [section, base_lr](long long total_steps) {
    ScheduleParams p{total_steps, resolve_warmup_steps(section, total_steps), base_lr};
    return instantiate<SchedulerFactory>(Kind::Scheduler, section.at("type").get<std::string>(),
                                         section, p);
  };
}

std::string bf16_warning(Precision precision, const torch::Device& device) {
  if (precision != Precision::Bf16 || !device.is_cpu() || !bf16_is_emulated()) return {};
  return "precision = \"bf16\" on a CPU without native bf16 instructions (no AVX512-BF16 or AMX): "
         "LibTorch emulates bf16 and training will be about 30x slower than fp32 (measured "
         "1.9 against 60 samples/s on bert-mini); use precision = \"fp32\" on this machine";
}

}  // namespace runner
