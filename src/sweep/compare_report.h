// The readable part of `runner compare`: metric tables with deltas, eval
// curves side by side, recipe and environment differences.
#pragma once

#include "sweep/compare.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace runner {

// One side of a comparison: a run directory, or a baseline read back as a run.
struct CompareSide {
  std::string label;
  bool is_baseline = false;
  RunResult run;
  std::string recipe_sha256;
};

CompareSide load_side(const std::string& path);
// "eval.f1": the final evaluation's f1; "best.f1": the best f1 over the evaluations.
std::optional<double> metric_value(const CompareSide& side, const std::string& metric,
                                   bool higher_is_better);

void print_comparison(const CompareSide& a, const CompareSide& b,
                      const std::vector<MetricCheck>& checks, std::ostream& out);
std::string format_check(const MetricCheck& check, double a, double b, const CheckOutcome& r);

// The same comparison as one JSON document (`runner compare --json`): both sides,
// the final metrics with deltas, the best and the eval curve of the main metric,
// and the recipe and environment differences; check_json is one --metric check.
nlohmann::json comparison_json(const CompareSide& a, const CompareSide& b, const std::vector<MetricCheck>& checks);
nlohmann::json check_json(const MetricCheck& check, double a, double b, const CheckOutcome& r);

}  // namespace runner
