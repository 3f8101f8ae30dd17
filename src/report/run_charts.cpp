#include "report/run_charts.h"

#include <algorithm>
#include <set>

namespace runner {
namespace {

// A quantity of the "train" events drawn as one chart.
struct TrainQuantity {
  const char* field;  // key in the train event
  const char* id;     // chart id suffix
  const char* title;
  const char* y_label;
  bool y_log;
};

const TrainQuantity kTrainQuantities[] = {
    {"loss", "train-loss", "Training loss", "loss (cross-entropy, mean over the log interval)", false},
    {"lr", "lr", "Learning rate", "learning rate", false},
    {"grad_norm", "grad-norm", "Gradient norm", "global L2 norm of the gradients", false},
    {"loss_scale", "loss-scale", "Loss scale (fp16)", "loss scale (log scale)", true},
    {"samples_per_s", "throughput", "Throughput", "samples / s", false},
    {"tokens_per_s", "tokens-per-s", "Token throughput", "tokens / s (padding excluded)", false},
};

// Fields of an eval event that are bookkeeping, not metrics.
bool is_eval_bookkeeping(const std::string& key) {
  return key == "event" || key == "step" || key == "epoch" || key == "examples" || key == "is_best";
}

std::vector<std::pair<double, double>> points_of(const std::vector<nlohmann::json>& events,
                                                 const std::string& field) {
  std::vector<std::pair<double, double>> out;
  for (const auto& e : events) {
    auto step = e.find("step");
    auto value = e.find(field);
    if (step == e.end() || value == e.end() || !step->is_number() || !value->is_number()) continue;
    out.push_back({step->get<double>(), value->get<double>()});
  }
  return out;
}

std::vector<ChartMarker> best_markers(const std::vector<RunHistory>& runs) {
  std::vector<ChartMarker> out;
  for (size_t i = 0; i < runs.size(); ++i)
    if (runs[i].best_step)
      out.push_back({static_cast<double>(*runs[i].best_step), runs.size() > 1 ? "best" : "best checkpoint",
                     static_cast<int>(i)});
  return out;
}

ChartSpec chart_of(const std::vector<RunHistory>& runs, const std::vector<std::string>& labels,
                   const std::string& id, const std::string& key, bool evals) {
  ChartSpec spec;
  spec.id = id;
  spec.x_label = "optimizer step";
  spec.x_from_zero = true;
  for (size_t i = 0; i < runs.size(); ++i) {
    ChartSeries s;
    s.label = labels[i];
    s.key = (evals ? "eval." : "train.") + key;
    if (evals) {
      s.points = points_of(runs[i].evals, key);
    } else if (auto it = runs[i].train_series.find(key); it != runs[i].train_series.end()) {
      s.points = it->second.points();
    }
    s.colour = static_cast<int>(i);
    s.dots = evals || s.points.size() <= 40;
    spec.series.push_back(std::move(s));
  }
  spec.markers = best_markers(runs);
  return spec;
}

bool any_points(const ChartSpec& spec) {
  return std::any_of(spec.series.begin(), spec.series.end(),
                     [](const ChartSeries& s) { return !s.points.empty(); });
}

std::string eval_y_label(const std::string& metric) {
  if (metric == "loss") return "loss (cross-entropy)";
  if (metric == "accuracy" || metric == "f1") return metric + " (fraction, higher is better)";
  return metric;
}

}  // namespace

std::vector<std::string> eval_metric_names(const std::vector<RunHistory>& runs) {
  std::vector<std::string> names;
  for (const auto& r : runs)
    for (const auto& e : r.evals)
      for (const auto& [key, value] : e.items())
        if (value.is_number() && !is_eval_bookkeeping(key) &&
            std::find(names.begin(), names.end(), key) == names.end())
          names.push_back(key);
  return names;
}

std::vector<ChartSpec> run_charts(const std::vector<RunHistory>& runs,
                                  const std::vector<std::string>& labels) {
  std::vector<ChartSpec> charts;
  std::set<std::string> taken;
  for (const auto& q : kTrainQuantities) {
    ChartSpec spec = chart_of(runs, labels, element_id("chart-", q.id, taken), q.field, false);
    spec.title = q.title;
    spec.y_label = q.y_label;
    spec.y_log = q.y_log;
    // The fp16 loss scale exists only for fp16 runs: no empty chart for the others.
    if (any_points(spec) || std::string(q.field) != "loss_scale") charts.push_back(std::move(spec));
  }
  for (const auto& metric : eval_metric_names(runs)) {
    // A metric name comes from a record: it is made a safe id, never pasted into one.
    ChartSpec spec = chart_of(runs, labels, element_id("chart-eval-", metric, taken), metric, true);
    spec.title = "Evaluation " + metric;
    spec.y_label = eval_y_label(metric);
    charts.push_back(std::move(spec));
  }
  return charts;
}

}  // namespace runner
