// The sweep summary: one row per point (overrides, status, best and final
// metric, wall time), sorted by the sweep metric, best first; written as
// sweep_summary.md, .csv and .json in the sweep directory.
#pragma once

#include "sweep/expand.h"
#include "sweep/ledger.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace runner {

struct PointRow {
  std::string id;
  std::vector<std::string> override_texts;  // one per SweepTable::keys ("" when unset)
  nlohmann::json overrides = nlohmann::json::object();
  std::string status;
  int attempts = 0;
  std::string last_error;
  std::string run_dir;  // the point's newest run directory, or ""
  std::optional<double> best, final_value;
  nlohmann::json final_metrics = nlohmann::json::object();
  std::optional<double> wall_seconds;
};

// One configuration of a sweep with replicates: its points differ only in the
// replicate keys (run.seed); the sweep metric's best per point, aggregated.
struct ConfigurationRow {
  std::string label;  // "optimizer.lr=0.0001 data.train_batch_size=16"
  nlohmann::json overrides = nlohmann::json::object();  // the keys that are not replicates
  std::vector<std::string> points;  // its points' ids, in sweep order
  long long n = 0;                  // completed points with a metric
  std::optional<double> mean, sd;   // sd with n - 1: none below 2 replicates
};

struct SweepTable {
  std::string sweep_name, metric;
  bool higher_is_better = true;
  std::vector<std::string> keys;  // the varying keys, in order of first appearance
  std::vector<PointRow> rows;     // completed best first, then the rest
  std::vector<std::string> replicates;            // keys aggregated over; empty: none
  std::vector<ConfigurationRow> configurations;  // best mean first, then those with no metric
  nlohmann::json asha;  // successive halving's progress (sweep/asha_progress.h); null without [asha]
};

SweepTable collect_results(const SweepFile& sweep, const std::vector<SweepPoint>& points,
                           const Ledger& ledger);
std::string render_markdown(const SweepTable& table);
std::string render_csv(const SweepTable& table);
nlohmann::json render_json(const SweepTable& table);
void write_summaries(const SweepTable& table, const std::string& sweep_dir);

}  // namespace runner
