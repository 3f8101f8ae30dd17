#include "sweep/compare.h"

#include "run/run_dir.h"
#include "sweep/compare_report.h"
#include "sweep/sweep_file.h"
#include "util/sha256.h"
#include "util/diagnostic.h"
#include "util/json_input.h"
#include "util/numbers.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <ostream>

namespace runner {
namespace fs = std::filesystem;

namespace {

// Eval events without their timings: what a baseline keeps of the curve.
nlohmann::json curve_of(const std::vector<nlohmann::json>& evals) {
  nlohmann::json curve = nlohmann::json::array();
  for (auto e : evals) {
    for (const char* k : {"event", "time", "seconds", "eval_seconds", "wall_seconds"}) e.erase(k);
    curve.push_back(std::move(e));
  }
  return curve;
}

}  // namespace

nlohmann::json make_baseline(const RunResult& run) {
  return {{"format", "runner-baseline"},
          {"version", 1},
          {"made_by", "runner compare --write-baseline " + run.dir},
          {"made_utc", utc_timestamp()},
          {"run_dir", run.dir},
          {"status", run.status()},
          {"recipe_sha256", digest::sha256_hex(run.resolved.dump())},
          {"final", run.final_metrics()},
          {"best", record_object(run.summary, "best")},
          {"eval_curve", curve_of(run.evals)},
          {"resolved_recipe", run.resolved},
          {"environment", run.env.record}};
}

// A baseline file read back as a run: the same fields a comparison needs.
CompareSide load_side(const std::string& path) {
  CompareSide side;
  side.label = path;
  if (fs::is_directory(path)) {
    side.run = load_run(path);
    side.recipe_sha256 = digest::sha256_hex(side.run.resolved.dump());
    return side;
  }
  nlohmann::json b = read_json_document(path, "", "pass a run directory or a baseline JSON "
                                                  "written by `runner compare --write-baseline`");
  if (!b.is_object() || record_string(b, "format", "") != "runner-baseline")
    throw InputError(make_error(SourceLocation{path, 0, 0, ""}, "format",
                                "expected a run directory or a baseline JSON "
                                "(\"format\": \"runner-baseline\"), found neither",
                                "make a baseline with `runner compare --write-baseline RUN_DIR`"));
  side.is_baseline = true;
  side.run.dir = record_string(b, "run_dir", path);
  side.run.summary = {{"status", record_string(b, "status", "unknown")}, {"final", record_object(b, "final")},
                      {"best", record_object(b, "best")}};
  side.run.resolved = record_object(b, "resolved_recipe");
  side.run.env = env_record_from(record_object(b, "environment"));
  for (const auto& e : record_array(b, "eval_curve")) side.run.evals.push_back(e);
  side.recipe_sha256 = record_string(b, "recipe_sha256", "");
  return side;
}

CheckOutcome check_metric(double reference, double candidate, const MetricCheck& check) {
  CheckOutcome o;
  o.worse_by = check.higher_is_better ? reference - candidate : candidate - reference;
  o.allowed = std::max(check.abs_tol, check.rel_tol * std::fabs(reference));
  // A relative slack of 1e-12 keeps values that print the same from failing on rounding.
  o.regressed = o.worse_by > o.allowed + 1e-12 * std::max(1.0, std::fabs(reference));
  return o;
}

std::optional<double> metric_value(const CompareSide& side, const std::string& metric,
                                   bool higher_is_better) {
  if (metric.rfind("best.", 0) == 0) {
    std::string name = metric.substr(5);
    if (side.run.evals.empty()) {
      nlohmann::json best = record_object(side.run.summary, "best");
      if (eval_metric_name(record_string(best, "metric", "")) == name && best.contains("value") &&
          best["value"].is_number())
        return best["value"].get<double>();
    }
    return best_eval(side.run.evals, name, higher_is_better);
  }
  return final_eval(side.run.final_metrics(), metric);
}

namespace {

// --abs-tol and the others: one value for every --metric, or one per --metric.
std::string nth(const std::vector<std::string>& values, size_t i, const std::string& flag,
                size_t metrics) {
  if (values.empty()) return "";
  if (values.size() == 1) return values[0];
  if (values.size() != metrics)
    throw InputError(fmt::format("{}: expected one value for every --metric or one per --metric "
                                 "({}), found {}", flag, metrics, values.size()));
  return values[i];
}

double tolerance(const std::string& text, const std::string& flag) {
  if (text.empty()) return 0.0;
  std::string why;
  std::optional<double> v = parse_number(text, why, 0.0);
  if (!v) throw InputError(make_error(SourceLocation{{}, 0, 0, flag}, "", why,
                                      "a tolerance is a number such as 0.01"));
  return *v;
}

std::vector<MetricCheck> parse_checks(const CompareOptions& o) {
  std::vector<MetricCheck> checks;
  size_t n = o.metrics.size();
  if (n == 0 && (!o.abs_tols.empty() || !o.rel_tols.empty() || !o.directions.empty()))
    throw InputError("--abs-tol, --rel-tol and --direction need a --metric to apply to "
                     "(e.g. --metric eval.f1 --abs-tol 0.01)");
  for (size_t i = 0; i < n; ++i) {
    MetricCheck c;
    c.metric = o.metrics[i];
    if (c.metric.rfind("eval.", 0) != 0 && c.metric.rfind("best.", 0) != 0)
      throw InputError(fmt::format("--metric: expected eval.NAME (final evaluation) or best.NAME "
                                   "(best evaluation), found \"{}\"", terminal_safe(c.metric)));
    c.abs_tol = tolerance(nth(o.abs_tols, i, "--abs-tol", n), "--abs-tol");
    c.rel_tol = tolerance(nth(o.rel_tols, i, "--rel-tol", n), "--rel-tol");
    std::string dir = nth(o.directions, i, "--direction", n);
    if (!dir.empty() && dir != "higher" && dir != "lower")
      throw InputError(fmt::format("--direction: expected higher or lower, found \"{}\"", dir));
    c.higher_is_better = dir.empty() ? default_higher_is_better(c.metric) : dir == "higher";
    checks.push_back(c);
  }
  return checks;
}

int write_baseline(const std::string& run_dir, std::ostream& out) {
  RunResult run = load_run(run_dir);
  if (run.status() != "completed")
    throw InputError(make_error(SourceLocation{run_dir, 0, 0, ""}, "status",
                                fmt::format("expected a completed run, found status \"{}\"", run.status()),
                                "a baseline comes only from a finished run you inspected"));
  out << make_baseline(run).dump(2) << "\n";
  return 0;
}

}  // namespace

int run_compare_command(const CompareOptions& o, std::ostream& out, std::ostream& err) {
  try {
    if (!o.write_baseline.empty()) return write_baseline(o.write_baseline, out);
    if (o.a.empty() || o.b.empty())
      throw InputError("runner compare: expected two paths A B (run directories or a run "
                       "directory and a baseline JSON)");
    std::vector<MetricCheck> checks = parse_checks(o);
    CompareSide a = load_side(o.a), b = load_side(o.b);
    if (!o.json) print_comparison(a, b, checks, out);
    nlohmann::json checks_out = nlohmann::json::array();
    bool regressed = false;
    for (const auto& c : checks) {
      std::optional<double> va = metric_value(a, c.metric, c.higher_is_better);
      std::optional<double> vb = metric_value(b, c.metric, c.higher_is_better);
      if (!va || !vb)
        throw InputError(fmt::format("--metric {}: not found in {}", terminal_safe(c.metric), terminal_safe(!va ? o.a : o.b)));
      CheckOutcome r = check_metric(*va, *vb, c);
      regressed |= r.regressed;
      if (o.json) checks_out.push_back(check_json(c, *va, *vb, r));
      else out << format_check(c, *va, *vb, r);
    }
    if (o.json) {
      nlohmann::json doc = comparison_json(a, b, checks);
      doc["checks"] = checks_out;
      doc["result"] = checks.empty() ? nlohmann::json() : nlohmann::json(regressed ? "regression" : "ok");
      out << json_terminal_safe(doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)) << "\n";
    } else if (!checks.empty()) {
      out << (regressed ? "result: REGRESSION\n" : "result: every check within tolerance\n");
    }
    return regressed ? 1 : 0;
  } catch (const InputError& e) {
    // A --metric or a path is quoted in the message as given: escaped for the terminal.
    err << terminal_safe(e.diagnostic().format(), true) << "\n";
    return 2;
  } catch (const std::exception& e) {
    err << "error: " << terminal_safe(e.what(), true) << "\n";
    return 2;
  }
}

}  // namespace runner
