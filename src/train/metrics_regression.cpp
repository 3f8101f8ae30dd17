// Metrics of regression, defined as SciPy's pearsonr and spearmanr and
// scikit-learn's mean_squared_error define them, except where SciPy returns
// nan: a constant series has no correlation, reported as 0 with a warning.
#include "train/metric.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace runner {
namespace {

void require_paired_values(const MetricInput& in) {
  if (in.scores.size() != in.targets.size())
    throw std::logic_error("metric: predicted and true values differ in length");
}

bool all_equal(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [&v](double x) { return x == v.front(); });
}

// Mean-centred sums in double: no cancellation of large means.
double correlation(const std::vector<double>& x, const std::vector<double>& y) {
  double n = static_cast<double>(x.size());
  double mx = std::accumulate(x.begin(), x.end(), 0.0) / n, my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  // Rounding can take |r| a hair past 1, as SciPy clips it.
  return std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
}

// 1-based ranks; a run of equal values shares the mean of the ranks it spans.
std::vector<double> average_ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&v](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> ranks(v.size());
  for (size_t start = 0; start < order.size();) {
    size_t end = start;
    while (end + 1 < order.size() && v[order[end + 1]] == v[order[start]]) ++end;
    double shared = (static_cast<double>(start + 1) + static_cast<double>(end + 1)) / 2;
    for (size_t i = start; i <= end; ++i) ranks[order[i]] = shared;
    start = end + 1;
  }
  return ranks;
}

MetricValue correlation_or_zero(const std::string& name, const std::vector<double>& predicted,
                                const std::vector<double>& truth) {
  if (predicted.size() < 2) return MetricValue(0.0, name + ": fewer than 2 examples have no correlation; reported as 0");
  const char* flat = all_equal(predicted) ? "prediction" : all_equal(truth) ? "label" : nullptr;
  if (!flat) return correlation(predicted, truth);
  return MetricValue(0.0, name + ": every " + flat +
                              " of the evaluation set is the same value, so the correlation is undefined "
                              "(SciPy returns nan); reported as 0");
}

}  // namespace

MetricValue pearson(const MetricInput& in) {
  require_paired_values(in);
  return correlation_or_zero("pearson", in.scores, in.targets);
}

MetricValue spearman(const MetricInput& in) {
  require_paired_values(in);
  return correlation_or_zero("spearman", average_ranks(in.scores), average_ranks(in.targets));
}

double mean_squared_error(const MetricInput& in) {
  require_paired_values(in);
  if (in.scores.empty()) return 0.0;
  double sum = 0;
  for (size_t i = 0; i < in.scores.size(); ++i) sum += (in.scores[i] - in.targets[i]) * (in.scores[i] - in.targets[i]);
  return sum / static_cast<double>(in.scores.size());
}

}  // namespace runner
