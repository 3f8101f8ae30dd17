#include "sweep/run_result.h"

#include "run/env_record.h"
#include "run/run_dir.h"
#include "run/run_summary.h"
#include "sweep/sweep_file.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"

#include <filesystem>
#include <fstream>

namespace runner {
namespace fs = std::filesystem;

bool is_run_dir(const std::string& dir) {
  std::error_code ec;
  return has_run_summary(RunPaths{dir}, ec);
}

namespace {

nlohmann::json read_if_present(const std::string& path) {
  return fs::exists(path) ? read_json_file(path) : nlohmann::json::object();
}

std::vector<nlohmann::json> read_evals(const std::string& path) {
  std::vector<nlohmann::json> out;
  if (!fs::exists(path)) return out;
  check_input_file({path, "", kMaxDataFileBytes, ""});
  std::ifstream in(path);
  std::string line, why;
  for (long long n = 1; read_bounded_line(in, line, path, n); ++n) {
    // A run killed mid-write can leave a partial last line: skip what does not parse.
    std::optional<nlohmann::json> e = try_parse_json(line, why);
    if (e && e->is_object() && record_string(*e, "event") == "eval") out.push_back(std::move(*e));
  }
  return out;
}

}  // namespace

RunResult load_run(const std::string& dir) {
  RunPaths paths{dir};
  if (!is_run_dir(dir))
    throw InputError(make_error(SourceLocation{dir, 0, 0, ""}, "",
                                "expected a run directory with summary.json, found none",
                                "pass a directory written by `runner run` (runs/<name>/<time>-<id>/)"));
  RunResult r;
  r.dir = dir;
  r.summary = read_run_summary(paths).record;
  r.resolved = read_if_present(paths.recipe_resolved());
  r.env = read_env_record_if_present(paths);
  r.evals = read_evals(paths.metrics());
  return r;
}

std::optional<double> best_eval(const std::vector<nlohmann::json>& evals, const std::string& metric,
                                bool higher_is_better) {
  std::string name = eval_metric_name(metric);
  std::optional<double> best;
  for (const auto& e : evals) {
    auto it = e.find(name);
    if (it == e.end() || !it->is_number()) continue;
    double v = it->get<double>();
    if (!best || (higher_is_better ? v > *best : v < *best)) best = v;
  }
  return best;
}

std::optional<double> final_eval(const nlohmann::json& final_metrics, const std::string& metric) {
  auto it = final_metrics.find(eval_metric_name(metric));
  if (it == final_metrics.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

bool default_higher_is_better(const std::string& metric) {
  return metric.find("loss") == std::string::npos && metric.find("perplexity") == std::string::npos;
}

}  // namespace runner
