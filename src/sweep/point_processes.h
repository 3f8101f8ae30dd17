// The points a sweep runs, whichever scheduler launched them (the grid's
// queue or the ASHA search): as child processes, or with --slurm as Slurm
// jobs (sweep/slurm_jobs.h). Which point each running child or job is,
// stopping them all on a signal or --fail-fast, and the kill-after test hook
// (RUNNER_TEST_SWEEP_KILL_AFTER, sweep/sweep_run.h).
#pragma once

#include "sweep/ledger.h"
#include "sweep/process.h"
#include "sweep/slurm_jobs.h"

#include <cstddef>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace runner {

class PointProcesses {
 public:
  // With `sbatch_options`, points are Slurm jobs submitted with those options.
  explicit PointProcesses(const std::optional<std::vector<std::string>>& sbatch_options);

  // Whether another point may start with `jobs` at a time.
  bool has_room(int jobs) const;
  bool empty() const { return running_.empty(); }
  // The signal that stopped the sweep; 0 when none.
  int stop_signal() const { return stop_signal_; }

  // Starts point `index` in `point_dir` (its output appended to point.log) and
  // records in `record` the process or the job that runs it.
  void start(size_t index, const std::vector<std::string>& command, const std::string& point_dir,
             const std::string& name, PointRecord& record);
  // Stops every point when a stop signal has arrived.
  void stop_on_pending_signal();
  // The next point to exit, with its exit; none when a signal came first.
  std::optional<std::pair<size_t, ChildExit>> wait();
  // After a point's exit was recorded: `counts` for the kill-after hook, and
  // with `fail_fast` a failed point stops the others.
  void after_exit(bool counts, bool failed, bool fail_fast, std::ostream& out);

 private:
  void stop_all(int sig);
  std::optional<std::pair<size_t, ChildExit>> wait_for_job();

  std::optional<SlurmJobs> slurm_;
  std::map<long, size_t> running_;  // pid (or Slurm job id) -> point index
  bool stopping_ = false;
  int stop_signal_ = 0;
  int kill_after_ = 0, counted_ = 0;
};

}  // namespace runner
