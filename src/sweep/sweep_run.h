// Running a sweep: every point validated first, then run as its own
// `runner run` child process under <output_dir>/<sweep name>/<point id>/,
// up to `jobs` at a time, with the ledger updated after every state change.
// Exit code: 0 every point completed, 1 some point failed or was invalid,
// 2 bad sweep input, 130/143 the sweep was interrupted.
//
// Test hook (for the kill-and-rerun test): RUNNER_TEST_SWEEP_KILL_AFTER=N makes
// the sweep SIGKILL itself once N points have completed in this process.
#pragma once

#include "recipe/rules.h"
#include "sweep/expand.h"
#include "sweep/ledger.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace runner {

struct SweepRunOptions {
  int jobs = 1;
  bool retry_failed = false;
  bool fail_fast = false;
  std::string runner_exe;  // what runs each point; empty means this executable
  int cpu_threads = 0;     // divided between the jobs; 0 means every CPU
  // --slurm: each point is a Slurm job submitted with these sbatch options,
  // its threads the job's CPUs (sweep/slurm_jobs.h).
  std::optional<std::vector<std::string>> slurm;
  Capabilities caps;
};

std::string sweep_dir_of(const SweepFile& sweep);  // <output_dir>/<name>, absolute

// The metrics the runs of a recipe with this resolved [data] section report
// ("eval.loss", "eval.accuracy", ...).
std::vector<std::string> produced_metrics(const nlohmann::json& data_section);

// Loads the base recipe with the point's overrides and checks that its runs
// produce the sweep's metric; empty when the point is valid.
Diagnostics validate_point(const SweepFile& sweep, const SweepPoint& point, const Capabilities& caps);

// validate_point for each point, in order.
std::vector<Diagnostics> validate_points(const SweepFile& sweep,
                                         const std::vector<SweepPoint>& points,
                                         const Capabilities& caps);

int run_sweep(const SweepFile& sweep, const std::vector<SweepPoint>& points,
              const SweepRunOptions& options, std::ostream& out, std::ostream& err);

}  // namespace runner
