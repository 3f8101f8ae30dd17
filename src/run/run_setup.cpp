#include "run/run_setup.h"

#include "optim/scheduler.h"
#include "registry/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <sched.h>
#include <thread>

namespace runner {
namespace {

long long env_integer(const char* name, long long fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  try {
    return std::stoll(v);
  } catch (const std::exception&) {
    return fallback;
  }
}

[[noreturn]] void kill_self() {
  std::raise(SIGKILL);
  std::abort();
}

}  // namespace

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

int apply_thread_setting(const nlohmann::json& run) {
  int n = run.value("threads", 0);
  if (n <= 0) n = usable_cpus();
  at::set_num_threads(n);  // LibTorch 1.13 would otherwise use one thread
  return n;
}

void apply_determinism(const nlohmann::json& run) {
  at::globalContext().setDeterministicAlgorithms(run.value("deterministic", false), false);
}

torch::Device pick_device(const nlohmann::json& run) {
  std::string d = run.value("device", "auto");
  bool cuda = d == "cuda" || (d == "auto" && torch::cuda::is_available());
  return cuda ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
}

RunLoggers::RunLoggers(const nlohmann::json& run, const RunPaths& paths, bool append) {
  std::vector<std::string> names = run.value("loggers", std::vector<std::string>{});
  for (const char* always : {"jsonl", "text"})
    if (std::find(names.begin(), names.end(), always) == names.end()) names.push_back(always);
  LoggerContext ctx{paths.dir, append};
  for (const auto& name : names) {
    owned_.push_back(instantiate<LoggerFactory>(Kind::Logger, name, nlohmann::json::object(), ctx));
    all_.push_back(owned_.back().get());
  }
}

void RunLoggers::emit(const nlohmann::json& event) const {
  for (Logger* l : all_) l->log(event);
}

StepWatch::StepWatch() {
  kill_at_step_ = env_integer("RUNNER_TEST_KILL_AT_STEP", -1);
  // RUNNER_TEST_KILL_RANK=R: only data-parallel rank R kills itself (dist tests).
  if (env_integer("RUNNER_TEST_KILL_RANK", -1) >= 0 &&
      env_integer("RUNNER_TEST_KILL_RANK", -1) != env_integer("RANK", 0))
    kill_at_step_ = -1;
  term_at_step_ = env_integer("RUNNER_TEST_TERM_AT_STEP", -1);
  if (const char* v = std::getenv("RUNNER_TEST_KILL_IN_CHECKPOINT")) {
    std::string s(v);
    auto colon = s.find(':');
    if (colon != std::string::npos) {
      kill_in_checkpoint_step_ = std::atoll(s.substr(0, colon).c_str());
      kill_in_checkpoint_file_ = s.substr(colon + 1);
    }
  }
}

void StepWatch::log(const nlohmann::json& event) {
  if (event.value("event", "") != "progress") return;
  step_ = event.value("step", 0LL);
  if (step_ == kill_at_step_) kill_self();
  if (step_ == term_at_step_) std::raise(SIGTERM);  // as a scheduler's preemption would
}

CheckpointWriteHook StepWatch::checkpoint_hook() const {
  if (kill_in_checkpoint_step_ < 0) return {};
  return [this](const std::string& file) {
    if (step_ == kill_in_checkpoint_step_ && file == kill_in_checkpoint_file_) kill_self();
  };
}

std::vector<NamedParameter> named_parameters(SequenceClassifier& model) {
  std::vector<NamedParameter> out;
  for (auto& p : model.named_parameters()) out.push_back({p.key(), p.value()});
  return out;
}

std::unique_ptr<Optimizer> make_optimizer(const nlohmann::json& section, SequenceClassifier& model) {
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

std::string bf16_warning(const std::string& precision, const torch::Device& device) {
  if (precision != "bf16" || !device.is_cpu() || !bf16_is_emulated()) return {};
  return "precision = \"bf16\" on a CPU without native bf16 instructions (no AVX512-BF16 or AMX): "
         "LibTorch emulates bf16 and training will be about 30x slower than fp32 (measured "
         "1.9 against 60 samples/s on bert-mini); use precision = \"fp32\" on this machine";
}

}  // namespace runner
