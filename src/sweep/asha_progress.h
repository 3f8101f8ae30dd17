// The progress of a successive-halving search, from its ledger and its runs:
// the rungs, the points finished and running at each, the promotions, and the
// optimizer steps the runs made against what the same points would make
// trained to max_budget each (the grid's cost). --status, the sweep summary
// and the sweep report show it. Torch-free.
#pragma once

#include "sweep/expand.h"
#include "sweep/ledger.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

struct AshaProgress {
  long long eta = 3;
  std::string unit = "steps";        // what the rungs count: steps or epochs
  std::string promotion = "asynchronous";  // or "certain": the [asha] promotion rule
  std::vector<long long> rungs;      // their budgets
  std::vector<long long> finished;   // per rung: points that reached it
  std::vector<long long> running;    // per rung: points sent to it, not there yet
  long long promotions = 0;          // each rung a point was sent past the bottom one
  long long stopped = 0;             // points stopped by the search below the top rung
  long long steps_spent = 0;         // optimizer steps of every run of the points
  long long grid_steps = 0;          // each point's steps trained to max_budget
};

AshaProgress asha_progress(const SweepFile& sweep, const std::vector<SweepPoint>& points, const Ledger& ledger);
nlohmann::json asha_progress_json(const AshaProgress& p);
// The rung table's budget column: "step", or "epoch" for budgets in epochs.
// "Successive halving (eta 3)", with the promotion rule when it is not the default.
std::string asha_heading(const nlohmann::json& progress);

std::string asha_rung_column(const nlohmann::json& progress);
// Markdown: one line of totals and a table of the rungs.
std::string asha_progress_markdown(const nlohmann::json& progress);

}  // namespace runner
