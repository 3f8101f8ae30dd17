#include "sweep/point_processes.h"

#include "util/numbers.h"

#include <algorithm>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <ostream>

namespace runner {

PointProcesses::PointProcesses() {
  const char* kill_after = std::getenv("RUNNER_TEST_SWEEP_KILL_AFTER");
  std::string why;
  kill_after_ = kill_after ? static_cast<int>(parse_integer(kill_after, why, 0, INT_MAX).value_or(0)) : 0;
}

bool PointProcesses::has_room(int jobs) const {
  return !stopping_ && running_.size() < static_cast<size_t>(std::max(1, jobs));
}

long PointProcesses::start(size_t index, const std::vector<std::string>& command, const std::string& log_path) {
  const long pid = spawn_child(command, log_path);
  running_[pid] = index;
  return pid;
}

void PointProcesses::stop_on_pending_signal() {
  if (int sig = pending_stop_signal()) stop_all(sig);
}

std::optional<std::pair<size_t, ChildExit>> PointProcesses::wait() {
  const ChildExit e = wait_any_child();
  if (e.interrupted) return std::nullopt;
  auto it = running_.find(e.pid);
  if (it == running_.end()) return std::nullopt;
  const size_t index = it->second;
  running_.erase(it);
  return std::make_pair(index, e);
}

void PointProcesses::after_exit(bool counts, bool failed, bool fail_fast, std::ostream& out) {
  if (counts && kill_after_ > 0 && ++counted_ == kill_after_) std::raise(SIGKILL);
  if (failed && fail_fast && !stopping_) {
    out << "[sweep] --fail-fast: stopping the other points\n";
    stop_all(0);
  }
}

void PointProcesses::stop_all(int sig) {
  if (stopping_) return;
  stopping_ = true;
  stop_signal_ = sig;
  for (const auto& [pid, index] : running_) terminate_child(pid);
}

}  // namespace runner
