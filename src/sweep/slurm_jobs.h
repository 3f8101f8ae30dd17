// Sweep points as Slurm batch jobs (`runner sweep FILE --slurm [sbatch options]`):
// one `sbatch` job per point, whose script execs the point's `runner run`.
// Slurm queues, places and requeues the jobs; the sweep only submits them,
// follows them with `scontrol show job` and stops them with `scancel`.
#pragma once

#include "sweep/process.h"

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace runner {

// A Slurm command that could not be run or refused; the message names it and the fix.
struct SlurmError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A job as `scontrol -o show job` reports it.
struct SlurmJobState {
  std::string state;  // JobState: PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, ...
  int exit_code = 0;  // ExitCode's status
  int signal = 0;     // ExitCode's signal
};

// JobId -> state of every job in `scontrol -o show job` output (one job a line).
std::map<long, SlurmJobState> parse_scontrol_jobs(const std::string& text);
// Whether a job in this state has ended (it will not run again unless requeued).
bool slurm_job_ended(const std::string& state);
// How an ended job ended, as a child's exit: what the run exited with, or, for a
// job that Slurm ended (cancelled, timed out, preempted, its node failed, ...),
// an interruption (143) that a restarted sweep resumes.
ChildExit exit_of_job(long job, const SlurmJobState& s);

// The batch script of a point: `command` with every word quoted for sh, and
// run.threads set to the job's CPUs (SLURM_CPUS_PER_TASK; 0, every CPU the job
// may use, when the job did not ask for a number).
std::string slurm_job_script(const std::vector<std::string>& command, const std::string& comment);

class SlurmJobs {
 public:
  explicit SlurmJobs(std::vector<std::string> sbatch_options) : options_(std::move(sbatch_options)) {}

  // Writes the point's script at `script_path` and submits it as job `name`,
  // its output appended to `log_path`; returns the job id.
  long submit(const std::vector<std::string>& command, const std::string& script_path, const std::string& log_path,
              const std::string& name);
  // The states of `jobs`; a job Slurm no longer knows (its record expired) is reported ended.
  std::map<long, SlurmJobState> states(const std::vector<long>& jobs) const;
  // Pending jobs are cancelled; running ones get SIGTERM (the runs checkpoint and stop).
  void stop(const std::vector<long>& jobs) const;

 private:
  std::vector<std::string> options_;
};

}  // namespace runner
