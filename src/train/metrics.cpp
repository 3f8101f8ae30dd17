#include "train/metric.h"
#include "registry/builtins.h"
#include "registry/registry.h"

#include <cmath>
#include <stdexcept>

namespace runner {
namespace {

struct Confusion {
  double tp = 0, fp = 0, tn = 0, fn = 0;
};

Confusion confusion(const MetricInput& in) {
  if (in.predictions.size() != in.labels.size())
    throw std::logic_error("metric: predictions and labels differ in length");
  Confusion c;
  for (size_t i = 0; i < in.labels.size(); ++i) {
    bool pred = in.predictions[i] == 1, gold = in.labels[i] == 1;
    if (pred && gold) ++c.tp;
    else if (pred) ++c.fp;
    else if (gold) ++c.fn;
    else ++c.tn;
  }
  return c;
}

}  // namespace

double accuracy(const MetricInput& in) {
  if (in.labels.empty()) return 0.0;
  size_t hits = 0;
  for (size_t i = 0; i < in.labels.size(); ++i) hits += in.predictions.at(i) == in.labels[i];
  return static_cast<double>(hits) / static_cast<double>(in.labels.size());
}

double f1_positive(const MetricInput& in) {
  Confusion c = confusion(in);
  double denom = 2 * c.tp + c.fp + c.fn;
  return denom == 0 ? 0.0 : 2 * c.tp / denom;
}

double matthews_corr(const MetricInput& in) {
  Confusion c = confusion(in);
  double denom = std::sqrt((c.tp + c.fp) * (c.tp + c.fn) * (c.tn + c.fp) * (c.tn + c.fn));
  return denom == 0 ? 0.0 : (c.tp * c.tn - c.fp * c.fn) / denom;
}

void register_metrics(Registry& r) {
  auto add = [&r](std::string name, std::string doc, MetricFn fn) {
    add_builtin(r, ComponentSpec{Kind::Metric, std::move(name), std::move(doc), {}},
                MetricFactory([fn] { return fn; }));
  };
  add("accuracy", "Fraction of examples whose predicted class is the label", accuracy);
  add("f1", "F1 score of class 1 (the positive class), as GLUE reports for MRPC", f1_positive);
  add("mcc", "Matthews correlation coefficient of a binary task", matthews_corr);
}

}  // namespace runner
