#include "sweep/asha_progress.h"

#include "run/run_search.h"
#include "run/run_summary.h"
#include "sweep/asha.h"
#include "sweep/sweep_run.h"
#include "util/json_input.h"

#include <fmt/format.h>

namespace runner {

namespace {

// The steps every run directory of the point made, a failed first try
// included, and the steps of its whole schedule (its newest run's total; 0
// when no run says).
std::pair<long long, long long> steps_of_point(const std::string& sweep_dir, const std::string& id) {
  long long steps = 0, whole = 0;
  for (const auto& dir : list_run_dirs(sweep_dir, id))
    if (std::optional<RunSummary> s = read_run_summary_if_readable(RunPaths{dir})) {
      steps += record_integer(s->record, "global_step");
      whole = record_integer(s->record, "total_steps");
    }
  return {steps, whole};
}

}  // namespace

AshaProgress asha_progress(const SweepFile& sweep, const std::vector<SweepPoint>& points, const Ledger& ledger) {
  AshaProgress p;
  p.eta = sweep.asha.eta;
  p.rungs = asha_rungs(sweep.asha);
  p.finished.assign(p.rungs.size(), 0);
  p.running.assign(p.rungs.size(), 0);
  p.unit = sweep.asha.unit();
  p.promotion = sweep.asha.certain ? "certain" : "asynchronous";
  const std::string dir = sweep_dir_of(sweep);
  for (const auto& point : points) {
    // Budgets in steps make every whole run max_budget steps; in epochs, its summary says.
    const auto [spent, whole] = steps_of_point(dir, point.id);
    p.grid_steps += sweep.asha.epochs ? whole : sweep.asha.max_budget;
    auto it = ledger.points.find(point.id);
    if (it == ledger.points.end() || it->second.rung < 0) continue;
    const PointRecord& r = it->second;
    const size_t reached = std::min(r.rung_metrics.size(), p.rungs.size());
    for (size_t k = 0; k < reached; ++k) ++p.finished[k];
    if (reached <= static_cast<size_t>(r.rung) && static_cast<size_t>(r.rung) < p.rungs.size()) ++p.running[r.rung];
    p.promotions += r.rung;
    if (r.state == PointState::Stopped) ++p.stopped;
    p.steps_spent += spent;
  }
  return p;
}

std::string asha_heading(const nlohmann::json& progress) {
  const bool certain = record_string(progress, "promotion", "asynchronous") == "certain";
  return fmt::format("Successive halving (eta {}{})", record_integer(progress, "eta"),
                     certain ? ", promotions once certain" : "");
}

std::string asha_rung_column(const nlohmann::json& progress) {
  return record_string(progress, "unit", "steps") == "epochs" ? "epoch" : "step";
}

nlohmann::json asha_progress_json(const AshaProgress& p) {
  nlohmann::json rungs = nlohmann::json::array();
  for (size_t k = 0; k < p.rungs.size(); ++k)
    rungs.push_back({{"rung", k}, {"step", p.rungs[k]}, {"finished", p.finished[k]}, {"running", p.running[k]}});
  return {{"eta", p.eta},         {"unit", p.unit},
          {"promotion", p.promotion}, {"rungs", rungs},
          {"promotions", p.promotions}, {"stopped", p.stopped},
          {"steps_spent", p.steps_spent}, {"grid_steps", p.grid_steps}};
}

std::string asha_progress_markdown(const nlohmann::json& j) {
  const long long spent = record_integer(j, "steps_spent"), grid = record_integer(j, "grid_steps");
  std::string out = fmt::format(
      "\n{}: {} promotions, {} points stopped by the search; {} optimizer steps spent, "
      "{:.1f}% of the {} a grid at max_budget spends\n\n| rung | {} | points reached | running |\n|---|---|---|---|\n",
      asha_heading(j), record_integer(j, "promotions"), record_integer(j, "stopped"), spent,
      grid > 0 ? 100.0 * static_cast<double>(spent) / static_cast<double>(grid) : 0.0, grid, asha_rung_column(j));
  for (const auto& r : record_array(j, "rungs"))
    out += fmt::format("| {} | {} | {} | {} |\n", record_integer(r, "rung"), record_integer(r, "step"),
                       record_integer(r, "finished"), record_integer(r, "running"));
  return out;
}

}  // namespace runner
