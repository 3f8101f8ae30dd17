#include "report/run_charts.h"

#include <algorithm>
#include <map>
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

// The kept points of one series of a run, none when it has no such series.
std::vector<std::pair<double, double>> points_of(const std::map<std::string, Downsampler>& series,
                                                 const std::string& field) {
  auto it = series.find(field);
  return it == series.end() ? std::vector<std::pair<double, double>>{} : it->second.points();
}

std::vector<ChartMarker> best_markers(const std::vector<RunHistory>& runs) {
  std::vector<ChartMarker> out;
  for (size_t i = 0; i < runs.size(); ++i)
    if (runs[i].best_step && runs[i].best_x)
      out.push_back({*runs[i].best_x, *runs[i].best_step, runs.size() > 1 ? "best" : "best checkpoint",
                     static_cast<int>(i)});
  return out;
}

ChartSpec chart_of(const std::vector<RunHistory>& runs, const std::vector<std::string>& labels,
                   const std::string& id, const std::string& key, bool evals) {
  ChartSpec spec;
  spec.id = id;
  spec.x_label = x_axis_label(runs.empty() ? XAxis::Step : runs.front().x_axis);
  spec.x_from_zero = true;
  for (size_t i = 0; i < runs.size(); ++i) {
    ChartSeries s;
    s.label = labels[i];
    s.key = (evals ? "eval." : "train.") + key;
    s.points = points_of(evals ? runs[i].eval_series : runs[i].train_series, key);
    s.colour = static_cast<int>(i);
    s.dots = evals || s.points.size() <= 40;
    spec.series.push_back(std::move(s));
  }
  spec.markers = best_markers(runs);
  for (size_t i = 0; i < runs.size(); ++i)
    for (const auto& r : runs[i].resumes)
      if (r.x) spec.markers.push_back({*r.x, r.step, "resumed", static_cast<int>(i)});
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
    for (const auto& key : r.eval_metrics)
      if (std::find(names.begin(), names.end(), key) == names.end()) names.push_back(key);
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
