#include "sweep/summary.h"

#include "run/run_dir.h"
#include "run/run_search.h"
#include "sweep/asha_progress.h"
#include "sweep/replicates.h"
#include "sweep/run_result.h"
#include "sweep/sweep_run.h"
#include "util/suggest.h"
#include "util/tie_ranks.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

namespace runner {
namespace {

std::vector<std::string> varying_keys(const std::vector<SweepPoint>& points) {
  std::vector<std::string> keys;
  for (const auto& p : points)
    for (const auto& a : p.varying)
      if (std::find(keys.begin(), keys.end(), a.key) == keys.end()) keys.push_back(a.key);
  return keys;
}

void fill_from_run(PointRow& row, const std::string& run_dir, const SweepTable& t) {
  row.run_dir = run_dir;
  try {
    RunResult r = load_run(run_dir);
    row.best = best_eval(r.evals, t.metric, t.higher_is_better);
    row.final_metrics = r.final_metrics();
    row.final_value = final_eval(row.final_metrics, t.metric);
    if (r.summary.contains("total_wall_seconds"))
      row.wall_seconds = r.summary["total_wall_seconds"].get<double>();
  } catch (const std::exception&) {
    // A run directory without a readable summary yet: the row keeps its status only.
  }
}

PointRow row_of(const SweepPoint& p, const Ledger& ledger, const SweepTable& t,
                const std::string& dir) {
  PointRow row;
  row.id = p.id;
  for (const auto& key : t.keys) {
    auto it = std::find_if(p.varying.begin(), p.varying.end(),
                           [&](const Assignment& a) { return a.key == key; });
    row.override_texts.push_back(it == p.varying.end() ? "" : it->text());
    if (it != p.varying.end()) row.overrides[key] = it->value.to_json();
  }
  auto rec = ledger.points.find(p.id);
  row.status = rec == ledger.points.end() ? "pending" : state_name(rec->second.state);
  if (rec != ledger.points.end()) {
    row.attempts = rec->second.attempts;
    row.last_error = rec->second.last_error;
  }
  std::vector<std::string> runs = list_run_dirs(dir, p.id);
  if (!runs.empty()) fill_from_run(row, runs.back(), t);
  return row;
}

// Completed points with a metric first, best first; then everything else in
// sweep order.
void sort_rows(SweepTable& t) {
  auto ranked = [](const PointRow& r) { return r.status == "completed" && r.best.has_value(); };
  std::stable_sort(t.rows.begin(), t.rows.end(), [&](const PointRow& a, const PointRow& b) {
    if (ranked(a) != ranked(b)) return ranked(a);
    if (!ranked(a)) return false;
    return t.higher_is_better ? *a.best > *b.best : *a.best < *b.best;
  });
}

// The rank column: ties share a rank ("=2"), as the sweep's report shows them.
std::vector<std::string> rank_column(const SweepTable& t) {
  std::vector<std::optional<double>> best;
  for (const auto& r : t.rows) best.push_back(r.status == "completed" ? r.best : std::nullopt);
  return tie_rank_labels(best);
}

std::string number(const std::optional<double>& v, const char* fmt_spec = "{:.4f}") {
  return v ? fmt::format(fmt::runtime(fmt_spec), *v) : "";
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string md_cell(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::string out;
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out.size() > 120 ? out.substr(0, 117) + "..." : out;
}

}  // namespace

SweepTable collect_results(const SweepFile& sweep, const std::vector<SweepPoint>& points,
                           const Ledger& ledger) {
  SweepTable t;
  t.sweep_name = sweep.name;
  t.metric = sweep.metric;
  t.higher_is_better = sweep.higher_is_better;
  t.keys = varying_keys(points);
  std::string dir = sweep_dir_of(sweep);
  for (const auto& p : points) t.rows.push_back(row_of(p, ledger, t, dir));
  sort_rows(t);
  t.replicates = sweep.replicates;
  if (!t.replicates.empty()) t.configurations = aggregate_replicates(t, t.replicates);
  if (sweep.asha.enabled) t.asha = asha_progress_json(asha_progress(sweep, points, ledger));
  return t;
}

namespace {

std::string mean_sd_text(const ConfigurationRow& c) {
  if (!c.mean) return "";
  return c.sd ? fmt::format("{:.4f} \u00b1 {:.4f}", *c.mean, *c.sd) : fmt::format("{:.4f}", *c.mean);
}

// The configurations over the replicates, ranked by the mean (ties share a rank).
std::string configurations_markdown(const SweepTable& t) {
  if (t.replicates.empty()) return "";
  std::string out = fmt::format("\nConfigurations over replicates of {}: mean \u00b1 sd (n - 1) of the best {}, "
                                "ranked by the mean\n\n| rank | configuration | mean \u00b1 sd | n | points |\n"
                                "|---|---|---|---|---|\n",
                                join(t.replicates, ", "), t.metric);
  std::vector<std::optional<double>> means;
  for (const auto& c : t.configurations) means.push_back(c.mean);
  const std::vector<std::string> ranks = tie_rank_labels(means);
  for (size_t i = 0; i < t.configurations.size(); ++i) {
    const ConfigurationRow& c = t.configurations[i];
    out += fmt::format("| {} | {} | {} | {} | {} |\n", ranks[i], md_cell(c.label.empty() ? "(base)" : c.label),
                       mean_sd_text(c), c.n, md_cell(join(c.points, " ")));
  }
  return out;
}

nlohmann::json configurations_json(const SweepTable& t) {
  nlohmann::json out = nlohmann::json::array();
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  for (const auto& c : t.configurations)
    out.push_back({{"configuration", c.label}, {"overrides", c.overrides}, {"points", c.points},
                   {"n", c.n}, {"mean", opt(c.mean)}, {"sd", opt(c.sd)}});
  return out;
}

}  // namespace

std::string render_markdown(const SweepTable& t) {
  size_t completed = std::count_if(t.rows.begin(), t.rows.end(),
                                   [](const PointRow& r) { return r.status == "completed"; });
  std::string out = fmt::format("Sweep {}: {} of {} points completed; ranked by {} ({} is better)\n\n",
                                t.sweep_name, completed, t.rows.size(), t.metric,
                                t.higher_is_better ? "higher" : "lower");
  std::string head = "| rank | point |", rule = "|---|---|";
  for (const auto& k : t.keys) head += " " + k + " |", rule += "---|";
  head += fmt::format(" status | best {0} | final {0} | wall s | attempts | error |", t.metric);
  rule += "---|---|---|---|---|---|";
  out += head + "\n" + rule + "\n";
  const std::vector<std::string> ranks = rank_column(t);
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const PointRow& r = t.rows[i];
    std::string line = fmt::format("| {} | {} |", ranks[i], r.id);
    for (const auto& v : r.override_texts) line += " " + md_cell(v) + " |";
    line += fmt::format(" {} | {} | {} | {} | {} | {} |", r.status, number(r.best),
                        number(r.final_value), number(r.wall_seconds, "{:.1f}"), r.attempts,
                        md_cell(r.last_error));
    out += line + "\n";
  }
  return out + configurations_markdown(t) + (t.asha.is_object() ? asha_progress_markdown(t.asha) : "");
}

std::string render_csv(const SweepTable& t) {
  std::string out = "rank,point";
  for (const auto& k : t.keys) out += "," + csv_field(k);
  out += ",status,best_" + t.metric + ",final_" + t.metric + ",wall_seconds,attempts,run_dir,error\n";
  const std::vector<std::string> ranks = rank_column(t);
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const PointRow& r = t.rows[i];
    std::string line = fmt::format("{},{}", ranks[i], r.id);
    for (const auto& v : r.override_texts) line += "," + csv_field(v);
    line += fmt::format(",{},{},{},{},{},{},{}\n", r.status, number(r.best, "{}"),
                        number(r.final_value, "{}"), number(r.wall_seconds, "{:.3f}"), r.attempts,
                        csv_field(r.run_dir), csv_field(r.last_error));
    out += line;
  }
  return out;
}

nlohmann::json render_json(const SweepTable& t) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : t.rows) {
    auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    rows.push_back({{"point", r.id},          {"overrides", r.overrides},
                    {"status", r.status},      {"best", opt(r.best)},
                    {"final", opt(r.final_value)}, {"final_metrics", r.final_metrics},
                    {"wall_seconds", opt(r.wall_seconds)}, {"attempts", r.attempts},
                    {"run_dir", r.run_dir},   {"error", r.last_error}});
  }
  nlohmann::json doc = {{"sweep", t.sweep_name}, {"metric", t.metric},
                        {"direction", t.higher_is_better ? "higher" : "lower"}, {"points", rows}};
  if (!t.replicates.empty()) doc["replicates"] = t.replicates, doc["configurations"] = configurations_json(t);
  if (t.asha.is_object()) doc["asha"] = t.asha;
  return doc;
}

void write_summaries(const SweepTable& t, const std::string& dir) {
  // Checked as every other file the runner writes: a full disk is an error, not a short table.
  write_text_atomic(dir + "/sweep_summary.md", render_markdown(t));
  write_text_atomic(dir + "/sweep_summary.csv", render_csv(t));
  write_json_atomic(dir + "/sweep_summary.json", render_json(t));
}

}  // namespace runner
