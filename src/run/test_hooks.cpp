#include "run/test_hooks.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
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

}  // namespace

StepWatch::StepWatch() {
  kill_at_step_ = kill_step_for_attempt();
  // RUNNER_TEST_KILL_RANK=R: only data-parallel rank R kills itself (dist tests).
  if (env_integer("RUNNER_TEST_KILL_RANK", -1) >= 0 &&
      env_integer("RUNNER_TEST_KILL_RANK", -1) != env_integer("RANK", 0))
    kill_at_step_ = -1;
  term_at_step_ = env_integer("RUNNER_TEST_TERM_AT_STEP", -1);
  step_pause_ms_ = env_integer("RUNNER_TEST_STEP_PAUSE_MS", 0);
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
  // An evaluation's progress event repeats its step: the hooks act once, when the step ends.
  if (event.value("event", "") != "progress" || event.contains("phase")) return;
  step_ = event.value("step", 0LL);
  if (step_ == kill_at_step_) kill_self();
  if (step_ == term_at_step_) std::raise(SIGTERM);  // as a scheduler's preemption would
  if (step_pause_ms_ > 0) std::this_thread::sleep_for(std::chrono::milliseconds(step_pause_ms_));
}

CheckpointWriteHook StepWatch::checkpoint_hook() const {
  if (kill_in_checkpoint_step_ < 0) return {};
  return [this](const std::string& file) {
    if (step_ == kill_in_checkpoint_step_ && file == kill_in_checkpoint_file_) kill_self();
  };
}

}  // namespace runner
