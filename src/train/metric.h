// Evaluation metrics over predicted and true class ids.
#pragma once

#include <functional>
#include <vector>

namespace runner {

struct MetricInput {
  std::vector<long long> predictions;
  std::vector<long long> labels;
};

using MetricFn = std::function<double(const MetricInput&)>;
using MetricFactory = std::function<MetricFn()>;

double accuracy(const MetricInput& in);
double f1_positive(const MetricInput& in);   // F1 of class 1, as GLUE reports for MRPC
double matthews_corr(const MetricInput& in);

}  // namespace runner
