#include "run/mlflow_payload.h"

#include "run/run_summary.h"

#include "train/logger.h"

#include <chrono>
#include <cmath>
#include <fstream>

namespace runner {

long long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The numbers of a train or eval event, named as the TensorBoard scalars are
// ("train/loss", "eval/f1"), at the event's step and time. JSON has no NaN:
// a non-finite value stays in metrics.jsonl only.
std::vector<mlflow::Metric> event_metrics(const nlohmann::json& event) {
  std::string kind = event.value("event", "");
  if (kind != "train" && kind != "eval") return {};
  double wall = event.value("wall_time", 0.0);
  long long ms = wall > 0 ? std::llround(wall * 1000) : now_ms();
  long long step = event.value("step", 0LL);
  std::vector<mlflow::Metric> out;
  for (const auto& [key, value] : event.items()) {
    if (is_event_bookkeeping(key) || !value.is_number()) continue;
    double v = value.get<double>();
    if (std::isfinite(v)) out.push_back({kind + "/" + key, v, ms, step});
  }
  return out;
}

namespace {

// The resolved recipe as MLflow params, "section.key" = value.
void add_recipe_params(const nlohmann::json& node, const std::string& prefix,
                       std::vector<mlflow::KeyValue>& out) {
  if (node.is_object()) {
    for (const auto& [key, value] : node.items())
      add_recipe_params(value, prefix.empty() ? key : prefix + "." + key, out);
    return;
  }
  std::string text = node.is_string() ? node.get<std::string>()
                                      : node.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > mlflow::kMaxParamValueChars) text = text.substr(0, mlflow::kMaxParamValueChars - 3) + "...";
  out.push_back({prefix, text});
}

}  // namespace

std::vector<mlflow::KeyValue> recipe_params(const std::string& run_dir) {
  std::ifstream in(run_dir + "/recipe.resolved.json");
  nlohmann::json recipe = nlohmann::json::parse(in, nullptr, false);
  std::vector<mlflow::KeyValue> out;
  if (!recipe.is_discarded()) add_recipe_params(recipe, "", out);
  return out;
}

std::string mlflow_status(const std::string& run_status) {
  if (run_status == "completed") return "FINISHED";
  if (run_status == "interrupted" || run_status == kStoppedBySearch) return "KILLED";
  return "FAILED";
}

}  // namespace runner
