// `runner sweep` and `runner compare`: argument handling only; the commands
// themselves are sweep/sweep_command.h and sweep/compare.h.
#include "cli/commands.h"

#include "cli/run_names.h"
#include "sweep/compare.h"
#include "sweep/sweep_command.h"

#include <fmt/format.h>

#include <iostream>

namespace runner {

int cmd_sweep(const ParsedArgs& args) {
  SweepCommandOptions o;
  o.sweep_path = args.positional(0);
  o.dry_run = args.has("--dry-run");
  o.status = args.has("--status");
  o.print_schema = args.has("--schema");
  o.retry_failed = args.has("--retry-failed");
  o.fail_fast = args.has("--fail-fast");
  o.json = args.has("--json");
  o.set_overrides = args.all("--set");
  if (args.has("--slurm")) o.slurm = args.all("--slurm");
  try {
    // Slurm queues the points itself: by default every one is submitted at once.
    o.jobs = static_cast<int>(integer_flag(args, "--jobs", o.slurm ? 4096 : 1));
    o.max_points = integer_flag(args, "--max-points", o.max_points);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  o.caps = detect_capabilities();
  return run_sweep_command(o, std::cout, std::cerr);
}

// --abs-tol, --rel-tol and --direction after a --metric are that metric's; one
// given before every --metric is the default of the metrics that have none.
// Without a --metric they are passed on as given (compare refuses them).
static std::vector<std::string> bound_to_metrics(const ParsedArgs& args, const std::string& flag) {
  const size_t metrics = args.all("--metric").size();
  if (metrics == 0) return args.all(flag);
  std::vector<std::string> per_metric(metrics);
  std::string fallback;
  for (const auto& [anchors, value] : args.after(flag, "--metric")) {
    if (anchors == 0) fallback = value;
    else if (!per_metric[anchors - 1].empty())
      throw std::invalid_argument(fmt::format("{} was given twice after --metric {}", flag,
                                              args.all("--metric")[anchors - 1]));
    else per_metric[anchors - 1] = value;
  }
  for (auto& v : per_metric)
    if (v.empty()) v = fallback;
  return per_metric;
}

int cmd_compare(const ParsedArgs& args) {
  CompareOptions o;
  o.a = args.positional(0).empty() ? "" : run_dir_argument(args.positional(0), std::cerr);
  o.b = args.positional(1).empty() ? "" : run_dir_argument(args.positional(1), std::cerr);
  o.metrics = args.all("--metric");
  try {
    o.abs_tols = bound_to_metrics(args, "--abs-tol");
    o.rel_tols = bound_to_metrics(args, "--rel-tol");
    o.directions = bound_to_metrics(args, "--direction");
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (args.has("--write-baseline")) o.write_baseline = run_dir_argument(args.get("--write-baseline"), std::cerr);
  o.json = args.has("--json");
  return run_compare_command(o, std::cout, std::cerr);
}

}  // namespace runner
