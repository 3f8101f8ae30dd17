// `runner sweep SWEEP [--dry-run | --status] [--jobs N] [--retry-failed]
// [--fail-fast] [--slurm [SBATCH_OPTION...]]` and `runner sweep --schema`, as a plain function the CLI calls.
#pragma once

#include "recipe/rules.h"
#include "sweep/expand.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace runner {

struct SweepCommandOptions {
  std::string sweep_path;
  bool dry_run = false;       // expand, validate every point, print the table; run nothing
  bool status = false;        // print the summary of a running or finished sweep
  bool print_schema = false;  // print the sweep file's JSON Schema
  bool json = false;          // --status as JSON (sweep_summary.json's form)
  std::vector<std::string> set_overrides;  // --set KEY=VALUE: joins the sweep's [set]
  int jobs = 1;  // with --slurm: points queued or running at once
  // --slurm: the sbatch options each point's job is submitted with.
  std::optional<std::vector<std::string>> slurm;
  long long max_points = kDefaultMaxPoints;  // --max-points: refuse larger sweeps
  bool retry_failed = false;
  bool fail_fast = false;
  std::string runner_exe;  // empty: this executable
  Capabilities caps;
};

// Exit codes: 0 every point completed (or the dry run found every point valid),
// 1 some point failed, 2 bad input, 130/143 interrupted.
int run_sweep_command(const SweepCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace runner
