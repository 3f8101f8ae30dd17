#include "run/test_hooks.h"
#include "train/interrupt.h"
#include "train/tensor_file.h"
#include "util/synced_file.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <string>
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

// The background writer renames a checkpoint into `path` when its write ends.
// A kill before that would leave the resume to an older checkpoint, earlier as
// steps get faster; a failed write gives up after a minute.
void wait_until_written(const std::string& path) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!path.empty() && !std::filesystem::exists(path) && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

[[noreturn]] void kill_self() {
  std::raise(SIGKILL);
  std::abort();
}

// "5" or "3,7": the entry for this attempt of `runner launch --max-restarts`
// (RUNNER_RESTART_COUNT, 0 for the first), so a restarted worker is not killed
// again at the same step; -1 past the list's end.
long long kill_step_for_attempt() {
  const char* v = std::getenv("RUNNER_TEST_KILL_AT_STEP");
  if (!v || !*v) return -1;
  std::string list(v);
  long long attempt = env_integer("RUNNER_RESTART_COUNT", 0);
  size_t at = 0;
  for (long long i = 0; i < attempt; ++i) {
    at = list.find(',', at);
    if (at == std::string::npos) return -1;
    ++at;
  }
  return std::atoll(list.c_str() + at);
}

// "N:FILE" or "N:FILE:MS" from the variable `name`; step -1 when unset.
CheckpointPlace checkpoint_place(const char* name) {
  CheckpointPlace p;
  const char* v = std::getenv(name);
  if (!v) return p;
  std::string s(v);
  auto colon = s.find(':');
  if (colon == std::string::npos) return p;
  auto second = s.find(':', colon + 1);
  p.step = std::atoll(s.substr(0, colon).c_str());
  p.file = s.substr(colon + 1, second == std::string::npos ? std::string::npos : second - colon - 1);
  if (second != std::string::npos) p.pause_ms = std::atoll(s.c_str() + second + 1);
  return p;
}

}  // namespace

bool CheckpointPlace::at(const std::string& checkpoint, const std::string& f) const {
  return step >= 0 && checkpoint == checkpoint_name(step) && f == file;
}

StepWatch::StepWatch() {
  kill_at_step_ = kill_step_for_attempt();
  // RUNNER_TEST_KILL_RANK=R: only data-parallel rank R kills itself (dist tests).
  if (env_integer("RUNNER_TEST_KILL_RANK", -1) >= 0 &&
      env_integer("RUNNER_TEST_KILL_RANK", -1) != env_integer("RANK", 0))
    kill_at_step_ = -1;
  term_at_step_ = env_integer("RUNNER_TEST_TERM_AT_STEP", -1);
  step_pause_ms_ = env_integer("RUNNER_TEST_STEP_PAUSE_MS", 0);
  kill_in_checkpoint_ = checkpoint_place("RUNNER_TEST_KILL_IN_CHECKPOINT");
  pause_in_checkpoint_ = checkpoint_place("RUNNER_TEST_PAUSE_IN_CHECKPOINT");
}

void StepWatch::log(const nlohmann::json& event) {
  // An evaluation's progress event repeats its step: the hooks act once, when the step ends.
  if (event.value("event", "") == "checkpoint") {
    saved_step_ = event.value("step", -1LL);
    saved_path_ = event.value("path", "");
  }
  if (event.value("event", "") != "progress" || event.contains("phase")) return;
  step_ = event.value("step", 0LL);
  if (step_ == kill_at_step_) {
    if (saved_step_ != pause_in_checkpoint_.step) wait_until_written(saved_path_);
    kill_self();
  }
  if (step_ == term_at_step_) interrupt_self(SIGTERM);  // as a scheduler's preemption would
  if (step_pause_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(step_pause_ms_));
}

// Called on the background writer's thread: it reads only what the
// constructor set.
CheckpointWriteHook StepWatch::checkpoint_hook() const {
  if (kill_in_checkpoint_.step < 0 && pause_in_checkpoint_.step < 0) return {};
  return [this](const std::string& checkpoint, const std::string& file) {
    if (pause_in_checkpoint_.at(checkpoint, file))
      std::this_thread::sleep_for(std::chrono::milliseconds(pause_in_checkpoint_.pause_ms));
    if (kill_in_checkpoint_.at(checkpoint, file)) kill_self();
  };
}

// The data-parallel rank, as torchrun or Slurm gives it; 0 alone.
static long long worker_rank() { return env_integer("RANK", env_integer("SLURM_PROCID", 0)); }

StepProbe StepWatch::step_probe() const {
  StepProbe probe;
  const char* scale = std::getenv("RUNNER_TEST_GRADIENT_SCALE");
  if (scale && *scale) {
    std::string s(scale);
    auto colon = s.find(':');
    if (colon != std::string::npos && std::atoll(s.substr(0, colon).c_str()) == worker_rank())
      probe.loss_factor = std::atof(s.c_str() + colon + 1);
  }
  const char* dir = std::getenv("RUNNER_TEST_GRADIENT_DIR");
  if (dir && *dir && worker_rank() == 0) {
    std::string folder(dir);
    probe.before_update = [folder](long long step, const std::vector<NamedParameter>& params, double lr) {
      TensorMap grads;
      for (const auto& p : params)
        if (p.tensor.grad().defined()) grads[p.name] = p.tensor.grad().detach().to(torch::kCPU).clone();
      grads["@lr"] = torch::tensor({lr}, torch::kFloat64);
      write_file_synced(folder + "/step-" + std::to_string(step) + ".safetensors", encode_tensors(grads));
    };
  }
  return probe;
}

}  // namespace runner
