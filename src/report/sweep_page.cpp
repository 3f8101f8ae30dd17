// The sweep report: the points ranked by the sweep metric, the metric against
// each swept key, and the overlaid runs of the points.
#include "report/html.h"
#include "report/report_page.h"
#include "report/svg_chart.h"
#include "sweep/asha_progress.h"
#include "util/json_input.h"
#include "util/tie_ranks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

namespace runner {
namespace {

std::vector<std::string> swept_keys(const nlohmann::json& points) {
  std::vector<std::string> keys;
  for (const auto& p : points) {
    const nlohmann::json overrides = record_object(p, "overrides");  // outlives items()
    for (const auto& [k, v] : overrides.items())
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  }
  return keys;
}

std::string value_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// Numbers go on a numeric axis (logarithmic when they span 20x or more, as
// learning rates do); anything else on a categorical one in order of appearance.
void place_x(ChartSpec& spec, const nlohmann::json& points, const std::string& key) {
  bool numeric = true;
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& p : points) {
    nlohmann::json v = record_object(p, "overrides").value(key, nlohmann::json());
    if (v.is_null()) continue;
    if (!v.is_number()) numeric = false;
    else lo = std::min(lo, v.get<double>()), hi = std::max(hi, v.get<double>());
    if (!v.is_number() && std::find(spec.x_categories.begin(), spec.x_categories.end(), value_text(v)) ==
                              spec.x_categories.end())
      spec.x_categories.push_back(value_text(v));
  }
  if (numeric) spec.x_categories.clear();
  spec.x_log = numeric && lo > 0 && hi / lo >= 20;
}

double x_of(const ChartSpec& spec, const nlohmann::json& v) {
  if (spec.x_categories.empty()) return v.get<double>();
  auto it = std::find(spec.x_categories.begin(), spec.x_categories.end(), value_text(v));
  return static_cast<double>(it - spec.x_categories.begin());
}

ChartSpec metric_vs_key(const nlohmann::json& summary, const std::string& key, std::set<std::string>& taken) {
  const nlohmann::json& points = summary["points"];
  std::string metric = record_string(summary, "metric", "metric");
  ChartSpec spec;
  spec.id = element_id("chart-sweep-", key, taken);
  spec.title = metric + " against " + key;
  spec.y_label = metric;
  place_x(spec, points, key);
  spec.x_label = key + (spec.x_log ? " (log scale)" : "");
  for (const char* which : {"best", "final"}) {
    bool best = which[0] == 'b';
    ChartSeries s{std::string(which) + " " + metric, std::string("sweep.") + which, {}, best ? 0 : 1, true, false,
                  best};
    for (const auto& p : points) {
      nlohmann::json v = record_object(p, "overrides").value(key, nlohmann::json());
      auto y = number_at(p, which);
      if (!v.is_null() && y && (v.is_number() || !spec.x_categories.empty())) s.points.push_back({x_of(spec, v), *y});
    }
    spec.series.push_back(std::move(s));
  }
  return spec;
}

HtmlTable points_table(const nlohmann::json& summary, const std::vector<std::string>& keys) {
  std::string metric = record_string(summary, "metric", "metric");
  HtmlTable t{"sweep-points", {"rank", "point"}, {}, false};
  t.head.insert(t.head.end(), keys.begin(), keys.end());
  for (const char* h : {"status"}) t.head.push_back(h);
  t.head.push_back("best " + metric);
  t.head.push_back("final " + metric);
  t.head.push_back("wall time");
  const nlohmann::json& points = summary["points"];
  std::vector<std::string> ranks = rank_labels(points);
  for (size_t i = 0; i < points.size(); ++i) {
    const nlohmann::json& p = points[i];
    std::vector<std::string> row{ranks[i], swatch_html(static_cast<int>(i)) + "<code>" +
                                               xml_escape(record_string(p, "point", "")) + "</code>"};
    nlohmann::json o = record_object(p, "overrides");
    for (const auto& k : keys) row.push_back(o.contains(k) ? "<code>" + xml_escape(value_text(o[k])) + "</code>" : "");
    row.push_back(xml_escape(record_string(p, "status", "")));
    row.push_back(metric_text(number_at(p, "best")));
    row.push_back(metric_text(number_at(p, "final")));
    row.push_back(duration_text(number_at(p, "wall_seconds")));
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::vector<std::string> replicate_keys_of(const nlohmann::json& summary) {
  std::vector<std::string> keys;
  for (const auto& k : record_array(summary, "replicates"))
    if (k.is_string()) keys.push_back(k.get<std::string>());
  return keys;
}

// A sweep with replicates: each configuration's mean, sd and n, ranked by the mean.
std::string configurations_html(const nlohmann::json& summary) {
  std::vector<std::string> replicates = replicate_keys_of(summary);
  if (replicates.empty()) return "";
  std::string metric = record_string(summary, "metric", "metric");
  HtmlTable t{"sweep-configurations", {"rank", "configuration", "mean " + metric, "sd (n - 1)", "n", "points"},
              {}, false};
  const nlohmann::json configs = record_array(summary, "configurations");
  std::vector<std::optional<double>> means;
  for (const auto& c : configs) means.push_back(number_at(c, "mean"));
  std::vector<std::string> ranks = tie_rank_labels(means);
  for (size_t i = 0; i < configs.size(); ++i) {
    const nlohmann::json& c = configs[i];
    std::string points;
    for (const auto& p : record_array(c, "points"))
      if (p.is_string()) points += (points.empty() ? "" : " ") + p.get<std::string>();
    std::string label = record_string(c, "configuration", "");
    t.rows.push_back({ranks[i], "<code>" + xml_escape(label.empty() ? "(base)" : label) + "</code>",
                      metric_text(number_at(c, "mean")), metric_text(number_at(c, "sd")),
                      std::to_string(record_integer(c, "n", 0)), "<code>" + xml_escape(points) + "</code>"});
  }
  std::string over;
  for (const auto& k : replicates) over += (over.empty() ? "" : ", ") + k;
  return "<h2>Configurations over replicates of " + xml_escape(over) + "</h2>" + render_table(t);
}

// Successive halving: the rungs, the points that reached each, the promotions,
// and the optimizer steps spent against a grid of the same points at max_budget.
std::string asha_html(const nlohmann::json& summary) {
  const nlohmann::json asha = record_object(summary, "asha");
  if (asha.empty()) return "";
  const double spent = static_cast<double>(record_integer(asha, "steps_spent"));
  const double grid = static_cast<double>(record_integer(asha, "grid_steps"));
  HtmlTable t{"sweep-asha", {"rung", asha_rung_column(asha), "points reached", "running"}, {}, false};
  for (const auto& r : record_array(asha, "rungs"))
    t.rows.push_back({std::to_string(record_integer(r, "rung")), std::to_string(record_integer(r, "step")),
                      std::to_string(record_integer(r, "finished")), std::to_string(record_integer(r, "running"))});
  return fmt::format("<h2>{}</h2><p>{} promotions; {} points stopped by the search; "
                     "{:.0f} optimizer steps spent, {:.1f}% of the {:.0f} that the same points at max_budget "
                     "spend</p>",
                     xml_escape(asha_heading(asha)), record_integer(asha, "promotions"),
                     record_integer(asha, "stopped"), spent, grid > 0 ? 100.0 * spent / grid : 0.0, grid) +
         render_table(t);
}

}  // namespace

nlohmann::json ranked_points(const nlohmann::json& summary) {
  nlohmann::json points = record_array(summary, "points");
  bool higher = record_string(summary, "direction", "higher") != "lower";
  // Under successive halving a stopped point's best is of a shorter run: the
  // points that reached max_budget rank first.
  const bool by_budget = !record_object(summary, "asha").empty();
  std::vector<nlohmann::json> rows(points.begin(), points.end());
  std::stable_sort(rows.begin(), rows.end(), [higher, by_budget](const nlohmann::json& a, const nlohmann::json& b) {
    const bool full_a = record_string(a, "status", "") == "completed", full_b = record_string(b, "status", "") == "completed";
    if (by_budget && full_a != full_b) return full_a;
    auto x = number_at(a, "best"), y = number_at(b, "best");
    if (x.has_value() != y.has_value()) return x.has_value();
    return x && (higher ? *x > *y : *x < *y);
  });
  return rows;
}

std::vector<std::string> rank_labels(const nlohmann::json& ranked) {
  std::vector<std::optional<double>> best;
  for (const auto& p : ranked) best.push_back(number_at(p, "best"));
  return tie_rank_labels(best);
}

std::string sweep_report_html(const nlohmann::json& sweep_summary, const std::vector<RunHistory>& point_runs,
                              const std::vector<std::string>& point_labels) {
  nlohmann::json summary = sweep_summary;
  summary["points"] = ranked_points(sweep_summary);
  std::string name = record_string(summary, "sweep", "sweep");
  std::string metric = record_string(summary, "metric", "metric");
  std::vector<std::string> keys = swept_keys(summary["points"]);
  std::string body = fmt::format("<h1>Sweep {}</h1><p class=\"sub\">runner report \u00b7 {} points ranked by "
                                 "the best {} ({} is better; points with equal values share a rank, marked =)</p>",
                                 xml_escape(name), summary["points"].size(), xml_escape(metric),
                                 xml_escape(record_string(summary, "direction", "higher")));
  body += configurations_html(summary);
  body += asha_html(summary);
  body += "<h2>Points</h2>" + render_table(points_table(summary, keys));
  body += "<h2>" + xml_escape(metric) + " against each swept key</h2>";
  std::set<std::string> taken;
  std::vector<ChartSpec> charts;
  // A replicate key (a seed) is no axis: its values only repeat a configuration.
  const std::vector<std::string> replicates = replicate_keys_of(summary);
  for (const auto& k : keys)
    if (std::find(replicates.begin(), replicates.end(), k) == replicates.end())
      charts.push_back(metric_vs_key(summary, k, taken));
  body += chart_figure_html(charts);
  if (!point_runs.empty()) body += runs_section_html(point_runs, point_labels);
  return html_page("Sweep " + name, body);
}

}  // namespace runner
