#include "sweep/compare_report.h"

#include "run/run_changes.h"
#include "sweep/sweep_file.h"
#include "util/json_input.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <ostream>
#include <set>

namespace runner {
namespace {

std::string signed_num(double v) { return fmt::format("{:+.4f}", v); }

std::string relative(double a, double b) {
  if (a == 0.0) return b == 0.0 ? "+0.00%" : "n/a";
  return fmt::format("{:+.2f}%", 100.0 * (b - a) / std::fabs(a));
}

std::string cell(const std::optional<double>& v) { return v ? fmt::format("{:.4f}", *v) : "-"; }

void metric_row(std::ostream& out, const std::string& name, std::optional<double> a,
                std::optional<double> b) {
  std::string abs = a && b ? signed_num(*b - *a) : "";
  std::string rel = a && b ? relative(*a, *b) : "";
  out << fmt::format("  {:<22} {:>10} {:>10} {:>11} {:>9}\n", terminal_safe(name), cell(a), cell(b), abs, rel);
}

// The metric names both final evaluations report, numbers only.
std::set<std::string> metric_names(const nlohmann::json& a, const nlohmann::json& b) {
  std::set<std::string> names;
  for (const auto* j : {&a, &b})
    for (const auto& [k, v] : j->items())
      if (v.is_number() && k != "step" && k != "epoch") names.insert(k);
  return names;
}

void print_final(const CompareSide& a, const CompareSide& b, std::ostream& out) {
  nlohmann::json fa = a.run.final_metrics(), fb = b.run.final_metrics();
  out << fmt::format("\nFinal evaluation{:<7} {:>10} {:>10} {:>11} {:>9}\n", "", "A", "B",
                     "abs delta", "rel delta");
  for (const auto& name : metric_names(fa, fb))
    metric_row(out, "eval." + name, number_at(fa, name), number_at(fb, name));
}

void print_best(const CompareSide& a, const CompareSide& b, const std::string& main,
                std::ostream& out) {
  if (main.empty()) return;
  bool higher = default_higher_is_better(main);
  out << fmt::format("\nBest over the evaluations ({} is better)\n", higher ? "higher" : "lower");
  metric_row(out, "best." + main, metric_value(a, "best." + main, higher),
             metric_value(b, "best." + main, higher));
}

void print_curves(const CompareSide& a, const CompareSide& b, const std::string& main,
                  std::ostream& out) {
  if (main.empty() || (a.run.evals.empty() && b.run.evals.empty())) return;
  std::map<long long, std::pair<std::optional<double>, std::optional<double>>> by_step;
  for (const auto& e : a.run.evals) by_step[record_integer(e, "step", 0)].first = number_at(e, main);
  for (const auto& e : b.run.evals) by_step[record_integer(e, "step", 0)].second = number_at(e, main);
  out << fmt::format("\nEval curve of {} by step\n  {:>8} {:>10} {:>10} {:>11}\n", terminal_safe(main), "step",
                     "A", "B", "B - A");
  for (const auto& [step, v] : by_step)
    out << fmt::format("  {:>8} {:>10} {:>10} {:>11}\n", step, cell(v.first), cell(v.second),
                       v.first && v.second ? signed_num(*v.second - *v.first) : "");
}

std::string shorten(const std::string& s) { return s.size() > 70 ? s.substr(0, 67) + "..." : s; }

void print_changes(const char* title, const std::vector<RunChange>& changes, std::ostream& out) {
  out << fmt::format("\n{} ({})\n", title, changes.size());
  if (changes.empty()) out << "  none\n";
  for (const auto& c : changes)
    out << fmt::format("  {}: A {} | B {}\n", terminal_safe(c.key), terminal_safe(shorten(c.before)),
                       terminal_safe(shorten(c.after)));
}

// The environment minus what differs on every run (times, the command line).
nlohmann::json stable_env(nlohmann::json env) {
  for (const char* k : {"command_line", "started_utc", "host", "pid", "run_dir"}) env.erase(k);
  return env;
}

std::string main_metric(const CompareSide& a, const CompareSide& b,
                        const std::vector<MetricCheck>& checks) {
  for (const auto& c : checks) {
    size_t dot = c.metric.find('.');
    if (dot != std::string::npos) return c.metric.substr(dot + 1);
  }
  for (const auto* s : {&a, &b}) {
    nlohmann::json best = record_object(s->run.summary, "best");
    std::string metric = eval_metric_name(record_string(best, "metric"));
    if (!metric.empty()) return metric;
  }
  return "";
}

}  // namespace

void print_comparison(const CompareSide& a, const CompareSide& b,
                      const std::vector<MetricCheck>& checks, std::ostream& out) {
  for (const auto* s : {&a, &b})
    out << fmt::format("{}: {}{} (status {}, recipe sha256 {})\n", s == &a ? "A" : "B", terminal_safe(s->label),
                       s->is_baseline ? " [baseline]" : "", terminal_safe(s->run.status()),
                       terminal_safe(s->recipe_sha256.substr(0, 12)));
  std::string main = main_metric(a, b, checks);
  print_final(a, b, out);
  print_best(a, b, main, out);
  print_curves(a, b, main, out);
  print_changes("Resolved recipe differences", recipe_changes(a.run.resolved, b.run.resolved), out);
  print_changes("Environment differences",
                recipe_changes(stable_env(a.run.env.record), stable_env(b.run.env.record)), out);
  if (!checks.empty()) out << "\nChecks (A is the reference, B the candidate)\n";
}

namespace {

nlohmann::json number_or_null(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json metric_json(const std::string& name, std::optional<double> a, std::optional<double> b) {
  nlohmann::json j = {{"metric", name}, {"a", number_or_null(a)}, {"b", number_or_null(b)}};
  j["abs_delta"] = a && b ? nlohmann::json(*b - *a) : nlohmann::json();
  j["rel_delta"] = a && b && *a != 0.0 ? nlohmann::json((*b - *a) / std::fabs(*a)) : nlohmann::json();
  return j;
}

nlohmann::json changes_json(const std::vector<RunChange>& changes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : changes) out.push_back({{"key", c.key}, {"a", c.before}, {"b", c.after}});
  return out;
}

nlohmann::json side_json(const CompareSide& s) {
  return {{"path", s.label}, {"baseline", s.is_baseline}, {"status", s.run.status()},
          {"recipe_sha256", s.recipe_sha256}};
}

nlohmann::json curve_json(const CompareSide& a, const CompareSide& b, const std::string& main) {
  std::map<long long, std::pair<std::optional<double>, std::optional<double>>> by_step;
  for (const auto& e : a.run.evals) by_step[record_integer(e, "step", 0)].first = number_at(e, main);
  for (const auto& e : b.run.evals) by_step[record_integer(e, "step", 0)].second = number_at(e, main);
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [step, v] : by_step)
    out.push_back({{"step", step}, {"a", number_or_null(v.first)}, {"b", number_or_null(v.second)}});
  return out;
}

}  // namespace

nlohmann::json comparison_json(const CompareSide& a, const CompareSide& b, const std::vector<MetricCheck>& checks) {
  nlohmann::json fa = a.run.final_metrics(), fb = b.run.final_metrics();
  nlohmann::json final_rows = nlohmann::json::array();
  for (const auto& name : metric_names(fa, fb))
    final_rows.push_back(metric_json("eval." + name, number_at(fa, name), number_at(fb, name)));
  std::string main = main_metric(a, b, checks);
  nlohmann::json out = {{"a", side_json(a)}, {"b", side_json(b)}, {"final", final_rows}};
  if (!main.empty()) {
    bool higher = default_higher_is_better(main);
    out["best"] = metric_json("best." + main, metric_value(a, "best." + main, higher),
                              metric_value(b, "best." + main, higher));
    out["best"]["higher_is_better"] = higher;
    out["eval_curve"] = {{"metric", main}, {"points", curve_json(a, b, main)}};
  }
  out["recipe_differences"] = changes_json(recipe_changes(a.run.resolved, b.run.resolved));
  out["environment_differences"] = changes_json(recipe_changes(stable_env(a.run.env.record), stable_env(b.run.env.record)));
  return out;
}

nlohmann::json check_json(const MetricCheck& c, double a, double b, const CheckOutcome& r) {
  return {{"metric", c.metric}, {"a", a}, {"b", b}, {"regressed", r.regressed}, {"worse_by", r.worse_by},
          {"allowed", r.allowed}, {"higher_is_better", c.higher_is_better}};
}

std::string format_check(const MetricCheck& c, double a, double b, const CheckOutcome& r) {
  return fmt::format("  {:<8} {}: A {:.6f} B {:.6f}, {} by {:.6f}, allowed {:.6f} ({} is better)\n",
                     r.regressed ? "REGRESS" : "ok", c.metric, a, b,
                     r.worse_by > 0 ? "worse" : "better", std::fabs(r.worse_by), r.allowed,
                     c.higher_is_better ? "higher" : "lower");
}

}  // namespace runner
