// `runner compare A B`: two run directories, or a run directory and a baseline
// JSON, as a readable diff (final and best metrics with deltas, eval curves
// side by side, resolved-recipe and environment differences), and with
// --metric checks a regression test. A is the reference, B the candidate.
//
// Tolerance: B regresses on a metric when it is worse than A by more than
// max(abs_tol, rel_tol * |A|), "worse" meaning lower when higher is better and
// higher when lower is better. Improvements never fail. Without a tolerance the
// allowance is 0. The direction defaults to lower for losses, higher otherwise.
#pragma once

#include "sweep/run_result.h"

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace runner {

struct MetricCheck {
  std::string metric;  // "eval.f1" (final evaluation) or "best.f1" (best evaluation)
  double abs_tol = 0.0;
  double rel_tol = 0.0;
  bool higher_is_better = true;
};

struct CompareOptions {
  std::string a, b;                 // run directories or baseline files
  std::vector<std::string> metrics;       // --metric, repeatable
  std::vector<std::string> abs_tols;      // --abs-tol: one for all, or one per --metric
  std::vector<std::string> rel_tols;      // --rel-tol: likewise
  std::vector<std::string> directions;    // --direction higher|lower: likewise
  std::string write_baseline;       // --write-baseline RUN_DIR: print a baseline instead
  bool json = false;                // --json: one JSON document instead of the tables
};

// Exit codes: 0 no check failed, 1 a metric regressed, 2 bad input.
int run_compare_command(const CompareOptions& options, std::ostream& out, std::ostream& err);

// A baseline: the run's final and best metrics and eval curve, with the hash
// of its resolved recipe and the environment they came from.
nlohmann::json make_baseline(const RunResult& run);

struct CheckOutcome {
  bool regressed = false;
  double worse_by = 0.0;  // > 0 when B is worse than A
  double allowed = 0.0;
};
CheckOutcome check_metric(double reference, double candidate, const MetricCheck& check);

}  // namespace runner
