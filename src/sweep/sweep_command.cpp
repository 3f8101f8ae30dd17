#include "sweep/sweep_command.h"

#include "sweep/asha.h"
#include "sweep/expand.h"
#include "sweep/ledger.h"
#include "sweep/summary.h"
#include "sweep/sweep_run.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

namespace runner {
namespace {

struct LoadedSweep {
  SweepFile sweep;
  std::vector<SweepPoint> points;
};

std::optional<LoadedSweep> load_and_expand(const std::string& path, const std::vector<std::string>& sets,
                                           long long max_points, std::ostream& err) {
  SweepLoad load = load_sweep_file(path, sets);
  err << format_all(load.diags);
  if (!load.sweep) {
    err << fmt::format("{}: invalid sweep file; nothing was run\n", path);
    return std::nullopt;
  }
  Expansion ex = expand_sweep(*load.sweep, max_points);
  err << format_all(ex.diags);
  if (has_errors(ex.diags)) {
    err << fmt::format("{}: the sweep's points are invalid; nothing was run\n", path);
    return std::nullopt;
  }
  return LoadedSweep{std::move(*load.sweep), std::move(ex.points)};
}

// The table's columns: every key some point overrides, in first-seen order.
std::vector<std::string> override_keys(const std::vector<SweepPoint>& points) {
  std::vector<std::string> keys;
  for (const auto& p : points)
    for (const auto& a : p.overrides)
      if (std::find(keys.begin(), keys.end(), a.key) == keys.end()) keys.push_back(a.key);
  return keys;
}

std::string table_head(const std::vector<std::string>& keys) {
  std::string head = "| # | point |";
  std::string rule = "|---|---|";
  for (const auto& k : keys) head += " " + k + " |", rule += "---|";
  return head + " valid |\n" + rule + "---|\n";
}

std::string table_row(size_t i, const SweepPoint& p, const std::vector<std::string>& keys, bool valid) {
  std::string line = fmt::format("| {} | {} |", i + 1, p.id);
  for (const auto& k : keys) {
    std::string v;
    for (const auto& a : p.overrides)
      if (a.key == k) v = a.text();
    line += " " + v + " |";
  }
  return line + (valid ? " yes |\n" : " NO |\n");
}

// What successive halving will do: its rungs, and the steps the same points
// would take each trained to max_budget.
std::string asha_plan_line(const AshaSettings& asha) {
  std::string rungs;
  for (long long r : asha_rungs(asha)) rungs += (rungs.empty() ? "" : ", ") + std::to_string(r);
  return fmt::format("Successive halving: rungs at {} {} (eta {}); the top 1/{} of a rung continue to the "
                     "next{}\n\n", asha.unit(), rungs, asha.eta, asha.eta,
                     asha.certain ? ", each once no point still to report at its rung can outrank it" : "");
}

// Each point's row is printed once it is checked, and only the invalid points'
// diagnostics are kept: a sweep may have a million points.
int dry_run(const LoadedSweep& s, const SweepCommandOptions& o, std::ostream& out,
            std::ostream& err) {
  // Names and values come from the sweep file: shown safe for a terminal.
  out << terminal_safe(fmt::format("Sweep {}: {} points from {}, runs under {}/<point id>/\n\n", s.sweep.name,
                                   s.points.size(), s.sweep.base, sweep_dir_of(s.sweep)),
                       true);
  if (s.sweep.asha.enabled) out << asha_plan_line(s.sweep.asha);
  const std::vector<std::string> keys = override_keys(s.points);
  out << terminal_safe(table_head(keys), true);
  std::vector<std::pair<size_t, Diagnostics>> invalid;
  for (size_t i = 0; i < s.points.size(); ++i) {
    Diagnostics check = validate_point(s.sweep, s.points[i], o.caps);
    out << terminal_safe(table_row(i, s.points[i], keys, check.empty()), true);
    if (!check.empty()) invalid.emplace_back(i, std::move(check));
  }
  for (const auto& [i, check] : invalid)
    err << terminal_safe(fmt::format("point {} ({}) is invalid:\n{}", i + 1, s.points[i].id, format_all(check)),
                         true);
  if (invalid.empty()) return 0;
  err << fmt::format("{}: {} of {} points invalid; fix them before running the sweep\n",
                     s.sweep.path, invalid.size(), s.points.size());
  return 2;
}

int print_status(const LoadedSweep& s, bool json, std::ostream& out) {
  Ledger ledger = load_ledger(ledger_path(sweep_dir_of(s.sweep)));
  if (json) {
    nlohmann::json doc = render_json(collect_results(s.sweep, s.points, ledger));
    out << json_terminal_safe(doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)) << "\n";
    return 0;
  }
  out << terminal_safe(render_markdown(collect_results(s.sweep, s.points, ledger)), true);  // from the ledger
  return 0;
}

}  // namespace

int run_sweep_command(const SweepCommandOptions& o, std::ostream& out, std::ostream& err) {
  if (o.print_schema) {
    out << sweep_schema().dump(2) << "\n";
    return 0;
  }
  if (o.sweep_path.empty()) {
    err << "error: runner sweep: expected a sweep file (.toml or .yaml)\n";
    return 2;
  }
  if (o.json && !o.status) {
    err << "error: --json goes with --status (the summary of a sweep as JSON)\n"
           "  hint: runner sweep SWEEP --status --json\n";
    return 2;
  }
  if (o.slurm && (o.dry_run || o.status)) {
    err << fmt::format("error: --slurm submits the points; --{} reads the sweep and submits nothing\n"
                       "  hint: runner sweep {} --{} (from any node that sees the sweep's folder)\n",
                       o.dry_run ? "dry-run" : "status", o.sweep_path, o.dry_run ? "dry-run" : "status");
    return 2;
  }
  if (o.jobs < 1) {
    err << fmt::format("error: --jobs: expected an integer >= 1, found {}\n", o.jobs);
    return 2;
  }
  std::optional<LoadedSweep> s = load_and_expand(o.sweep_path, o.set_overrides, o.max_points, err);
  if (!s) return 2;
  if (o.dry_run) return dry_run(*s, o, out, err);
  if (o.status) return print_status(*s, o.json, out);
  SweepRunOptions run;
  run.jobs = o.jobs;
  run.retry_failed = o.retry_failed;
  run.fail_fast = o.fail_fast;
  run.runner_exe = o.runner_exe;
  run.caps = o.caps;
  run.slurm = o.slurm;
  return run_sweep(s->sweep, s->points, run, out, err);
}

}  // namespace runner
