// An example metric plugin: balanced accuracy (scikit-learn's
// balanced_accuracy_score), the mean over the true classes of the fraction of
// each class's examples predicted as that class. A recipe lists it in
// data.metrics and may pick the best checkpoint by it.
#include "registry/plugin_api.h"
#include "train/metric.h"

#include <map>

namespace {

double balanced_accuracy(const runner::MetricInput& in) {
  std::map<long long, std::pair<double, double>> hits_of_class;  // class -> (hits, examples)
  for (size_t i = 0; i < in.labels.size(); ++i) {
    auto& [hits, examples] = hits_of_class[in.labels[i]];
    hits += in.predictions.at(i) == in.labels[i];
    ++examples;
  }
  if (hits_of_class.empty()) return 0.0;
  double sum = 0;
  for (const auto& [label, counts] : hits_of_class) sum += counts.first / counts.second;
  return sum / static_cast<double>(hits_of_class.size());
}

void register_balanced_accuracy(runner::PluginContext& ctx) {
  runner::ComponentSpec spec{runner::Kind::Metric, "example_balanced_accuracy",
                             "Mean recall over the true classes (example plugin)", {}};
  spec.problem_types = {runner::ProblemType::SingleLabel};
  ctx.add(std::move(spec), runner::MetricFactory([] { return runner::MetricFn(balanced_accuracy); }));
}

}  // namespace

RUNNER_PLUGIN(register_balanced_accuracy)
