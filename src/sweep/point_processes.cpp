#include "sweep/point_processes.h"

#include "util/numbers.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <ostream>

namespace runner {

namespace {
// Two seconds between two questions to the Slurm controller: a point ends
// minutes apart from the next, and a sweep of hundreds of jobs must not load it.
constexpr int kSlurmPollTenths = 20;
}  // namespace

PointProcesses::PointProcesses(const std::optional<std::vector<std::string>>& sbatch_options) {
  if (sbatch_options) slurm_.emplace(*sbatch_options);
  const char* kill_after = std::getenv("RUNNER_TEST_SWEEP_KILL_AFTER");
  std::string why;
  kill_after_ = kill_after ? static_cast<int>(parse_integer(kill_after, why, 0, INT_MAX).value_or(0)) : 0;
}

bool PointProcesses::has_room(int jobs) const {
  return !stopping_ && running_.size() < static_cast<size_t>(std::max(1, jobs));
}

void PointProcesses::start(size_t index, const std::vector<std::string>& command, const std::string& point_dir,
                           const std::string& name, PointRecord& record) {
  const std::string log = point_dir + "/point.log";
  if (slurm_) {
    record.slurm_job = slurm_->submit(command, point_dir + "/slurm-job.sh", log, name);
    record.pid = 0;
    running_[record.slurm_job] = index;
    return;
  }
  record.pid = spawn_child(command, log);
  record.slurm_job = 0;
  running_[record.pid] = index;
}

void PointProcesses::stop_on_pending_signal() {
  if (int sig = pending_stop_signal()) stop_all(sig);
}

std::optional<std::pair<size_t, ChildExit>> PointProcesses::wait() {
  if (slurm_) return wait_for_job();
  const ChildExit e = wait_any_child();
  if (e.interrupted) return std::nullopt;
  auto it = running_.find(e.pid);
  if (it == running_.end()) return std::nullopt;
  const size_t index = it->second;
  running_.erase(it);
  return std::make_pair(index, e);
}

// Polls the controller; a stop signal not yet acted on returns at once.
std::optional<std::pair<size_t, ChildExit>> PointProcesses::wait_for_job() {
  for (;;) {
    std::vector<long> jobs;
    for (const auto& [job, index] : running_) jobs.push_back(job);
    for (const auto& [job, state] : slurm_->states(jobs)) {
      if (!slurm_job_ended(state.state)) continue;
      const size_t index = running_.at(job);
      running_.erase(job);
      return std::make_pair(index, exit_of_job(job, state));
    }
    for (int i = 0; i < kSlurmPollTenths; ++i) {
      if (!stopping_ && pending_stop_signal()) return std::nullopt;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
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
  std::vector<long> ids;
  for (const auto& [id, index] : running_) ids.push_back(id);
  if (slurm_) {
    slurm_->stop(ids);
    return;
  }
  for (long pid : ids) terminate_child(pid);
}

}  // namespace runner
