// What a finished (or unfinished) run directory says about its metrics, read
// back from summary.json, metrics.jsonl, recipe.resolved.json and env.json.
#pragma once

#include "run/env_record.h"
#include "run/run_summary.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace runner {

struct RunResult {
  std::string dir;
  nlohmann::json summary = nlohmann::json::object();
  nlohmann::json resolved = nlohmann::json::object();  // the resolved recipe
  EnvRecord env;  // env.json, typed (run/env_record.h)
  std::vector<nlohmann::json> evals;  // the eval events, in order

  std::string status() const { return summary_from_record(summary).recorded_status(); }
  nlohmann::json final_metrics() const { return summary.value("final", nlohmann::json::object()); }
};

// Reads a run directory; a missing summary.json throws InputError naming it.
RunResult load_run(const std::string& dir);
// Whether `dir` looks like a run directory (has summary.json).
bool is_run_dir(const std::string& dir);

// The best value of an eval metric ("eval.f1" or "f1") over the eval events.
std::optional<double> best_eval(const std::vector<nlohmann::json>& evals, const std::string& metric,
                                bool higher_is_better);
// A metric of the final evaluation ("eval.f1" or "f1").
std::optional<double> final_eval(const nlohmann::json& final_metrics, const std::string& metric);

// Lower is better for losses and perplexities, higher for everything else.
bool default_higher_is_better(const std::string& metric);

}  // namespace runner
