#include "sweep/point_command.h"

#include "sweep/sweep_run.h"
#include "util/paths.h"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <thread>

namespace runner {

namespace {

int threads_per_point(const SweepRunOptions& options) {
  int jobs = std::max(1, options.jobs);
  int cpus = options.cpu_threads > 0 ? options.cpu_threads : static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, cpus / jobs);
}

}  // namespace

// An interrupted point continues its run directory; a point that failed
// before starts a fresh one (its failed run stays for inspection).
std::vector<std::string> point_command(const SweepFile& sweep, const SweepPoint& p, const SweepRunOptions& options,
                                       bool resume, const std::vector<std::string>& extra) {
  std::string exe = options.runner_exe.empty() ? executable_path() : options.runner_exe;
  std::vector<std::string> argv = {exe, "run", sweep.base};
  std::vector<std::string> sets = p.set_args();
  sets.push_back("run.output_dir=" + sweep_dir_of(sweep));
  sets.push_back("run.name=" + p.id);
  // Under Slurm the job's allocation gives the threads (its script sets them).
  if (!options.slurm) sets.push_back(fmt::format("run.threads={}", threads_per_point(options)));
  for (const auto& s : sets) {
    argv.push_back("--set");
    argv.push_back(s);
  }
  if (resume) argv.insert(argv.end(), {"--resume", "auto"});
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

PointState state_of_exit(const ChildExit& e) {
  if (e.exit_code == 0) return PointState::Completed;
  if (e.exit_code == 129 || e.exit_code == 130 || e.exit_code == 143 || e.signal == SIGKILL)
    return PointState::Interrupted;
  return PointState::Failed;
}

std::string point_error(const ChildExit& e, const std::string& log_path) {
  const std::string logged = error_from_log(log_path);
  if (e.note.empty()) return logged;
  return logged.empty() ? e.note : e.note + "; " + logged;
}

std::string error_from_log(const std::string& log_path) {
  std::ifstream in(log_path);
  std::string line, error, last;
  bool after_error = false;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    last = line;
    if (line.rfind("error", 0) == 0 || line.find(": error: ") != std::string::npos) {
      error = line;
      after_error = true;
    } else if (after_error && line.find("hint:") != std::string::npos) {
      error += " (" + line.substr(line.find("hint:")) + ")";
      after_error = false;
    } else {
      after_error = false;
    }
  }
  std::string msg = error.empty() ? last : error;
  return msg.size() > 400 ? msg.substr(0, 400) + "..." : msg;
}

nlohmann::json overrides_json(const SweepPoint& p) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& a : p.varying) j[a.key] = a.value.to_json();
  return j;
}

}  // namespace runner
