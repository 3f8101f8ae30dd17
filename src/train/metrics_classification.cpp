// Metrics of single-label and multi-label classification, defined as
// scikit-learn defines them (its f1_score, matthews_corrcoef, accuracy_score).
#include "train/metric.h"

#include "util/diagnostic.h"

#include <cmath>
#include <map>
#include <stdexcept>

namespace runner {
namespace {

struct ClassCounts {
  double tp = 0, fp = 0, fn = 0;
  double support() const { return tp + fn; }
  // 2tp / (2tp + fp + fn) equals 2PR / (P + R); 0 where both are 0/0.
  double f1() const { return tp + fp + fn == 0 ? 0.0 : 2 * tp / (2 * tp + fp + fn); }
};

void require_same_length(const MetricInput& in) {
  if (in.predictions.size() != in.labels.size())
    throw std::logic_error("metric: predictions and labels differ in length");
}

// Per class seen in the labels or the predictions, in class order.
std::map<long long, ClassCounts> single_label_counts(const MetricInput& in) {
  require_same_length(in);
  std::map<long long, ClassCounts> counts;
  for (size_t i = 0; i < in.labels.size(); ++i) {
    long long pred = in.predictions[i], gold = in.labels[i];
    if (pred == gold) {
      ++counts[gold].tp;
      continue;
    }
    ++counts[pred].fp;
    ++counts[gold].fn;
  }
  return counts;
}

// Per label of a multi-label input: column j of the n x label_count decisions.
std::vector<ClassCounts> multi_label_counts(const MetricInput& in) {
  require_same_length(in);
  size_t width = static_cast<size_t>(in.label_count);
  if (width == 0 || in.labels.size() % width != 0)
    throw std::logic_error("metric: multi-label decisions are not examples x label_count");
  std::vector<ClassCounts> counts(width);
  for (size_t i = 0; i < in.labels.size(); ++i) {
    bool pred = in.predictions[i] != 0, gold = in.labels[i] != 0;
    ClassCounts& c = counts[i % width];
    if (pred && gold) ++c.tp;
    else if (pred) ++c.fp;
    else if (gold) ++c.fn;
  }
  return counts;
}

double micro_of(const std::vector<ClassCounts>& counts) {
  ClassCounts all;
  for (const ClassCounts& c : counts) {
    all.tp += c.tp;
    all.fp += c.fp;
    all.fn += c.fn;
  }
  return all.f1();
}

std::vector<ClassCounts> values_of(const std::map<long long, ClassCounts>& counts) {
  std::vector<ClassCounts> out;
  for (const auto& [id, c] : counts) out.push_back(c);
  return out;
}

double mean_f1(const std::vector<ClassCounts>& counts) {
  if (counts.empty()) return 0.0;
  double sum = 0;
  for (const ClassCounts& c : counts) sum += c.f1();
  return sum / static_cast<double>(counts.size());
}

}  // namespace

double accuracy(const MetricInput& in) {
  require_same_length(in);
  if (in.labels.empty()) return 0.0;
  size_t hits = 0;
  for (size_t i = 0; i < in.labels.size(); ++i) hits += in.predictions[i] == in.labels[i];
  return static_cast<double>(hits) / static_cast<double>(in.labels.size());
}

double f1_positive(const MetricInput& in) {
  std::map<long long, ClassCounts> counts = single_label_counts(in);
  for (const auto& [id, c] : counts)
    if (id < 0 || id > 1)
      throw InputError(make_error({}, "data.metrics",
                                  "metric \"f1\" is the F1 of class 1 of a binary task, but class " +
                                      std::to_string(id) + " occurs",
                                  "use macro_f1, micro_f1 or weighted_f1 for more than two classes"));
  return counts[1].f1();
}

double macro_f1(const MetricInput& in) {
  if (in.problem == ProblemType::MultiLabel) return multi_label_macro_f1(in);
  return mean_f1(values_of(single_label_counts(in)));
}

double micro_f1(const MetricInput& in) {
  if (in.problem == ProblemType::MultiLabel) return micro_of(multi_label_counts(in));
  return micro_of(values_of(single_label_counts(in)));
}

double weighted_f1(const MetricInput& in) {
  double weighted = 0, support = 0;
  for (const auto& [id, c] : single_label_counts(in)) {
    weighted += c.support() * c.f1();
    support += c.support();
  }
  return support == 0 ? 0.0 : weighted / support;
}

// With C[k][l] the examples of class k predicted as l, t_k its row sums, p_k its
// column sums, c its trace and s the examples:
// R_K = (c s - sum p_k t_k) / sqrt((s^2 - sum p_k^2)(s^2 - sum t_k^2)).
double matthews_corr(const MetricInput& in) {
  require_same_length(in);
  std::map<long long, double> true_count, pred_count;
  double correct = 0, n = static_cast<double>(in.labels.size());
  for (size_t i = 0; i < in.labels.size(); ++i) {
    ++true_count[in.labels[i]];
    ++pred_count[in.predictions[i]];
    correct += in.predictions[i] == in.labels[i];
  }
  double pt = 0, pp = 0, tt = 0;
  for (const auto& [k, t] : true_count) {
    tt += t * t;
    auto p = pred_count.find(k);
    if (p != pred_count.end()) pt += p->second * t;
  }
  for (const auto& [k, p] : pred_count) pp += p * p;
  double denom = std::sqrt((n * n - pp) * (n * n - tt));
  return denom == 0 ? 0.0 : (correct * n - pt) / denom;
}

nlohmann::json per_class_details(const MetricInput& in) {
  std::map<long long, ClassCounts> counts = single_label_counts(in);
  if (counts.size() > kMaxClassesDetailed) return nullptr;
  std::map<long long, size_t> index;
  nlohmann::json classes = nlohmann::json::array(), precision = classes, recall = classes, f1 = classes,
                 support = classes;
  for (const auto& [id, c] : counts) {
    index[id] = classes.size();
    classes.push_back(id);
    precision.push_back(c.tp + c.fp == 0 ? 0.0 : c.tp / (c.tp + c.fp));
    recall.push_back(c.support() == 0 ? 0.0 : c.tp / c.support());
    f1.push_back(c.f1());
    support.push_back(static_cast<long long>(c.support()));
  }
  std::vector<std::vector<long long>> confusion(counts.size(), std::vector<long long>(counts.size(), 0));
  for (size_t i = 0; i < in.labels.size(); ++i) ++confusion[index[in.labels[i]]][index[in.predictions[i]]];
  return {{"classes", classes}, {"precision", precision}, {"recall", recall},
          {"f1", f1}, {"support", support}, {"confusion", confusion}};
}

double multi_label_macro_f1(const MetricInput& in) { return mean_f1(multi_label_counts(in)); }

nlohmann::json per_label_details(const MetricInput& in) {
  std::vector<ClassCounts> counts = multi_label_counts(in);
  if (counts.size() > kMaxClassesDetailed) return nullptr;
  nlohmann::json precision = nlohmann::json::array(), recall = nlohmann::json::array(),
                 f1 = nlohmann::json::array(), support = nlohmann::json::array();
  for (const ClassCounts& c : counts) {
    precision.push_back(c.tp + c.fp == 0 ? 0.0 : c.tp / (c.tp + c.fp));
    recall.push_back(c.tp + c.fn == 0 ? 0.0 : c.tp / (c.tp + c.fn));
    f1.push_back(c.f1());
    support.push_back(static_cast<long long>(c.support()));
  }
  return {{"precision", precision}, {"recall", recall}, {"f1", f1}, {"support", support}};
}

double subset_accuracy(const MetricInput& in) {
  require_same_length(in);
  size_t width = static_cast<size_t>(in.label_count);
  if (width == 0 || in.labels.size() % width != 0)
    throw std::logic_error("metric: multi-label decisions are not examples x label_count");
  size_t examples = in.labels.size() / width, exact = 0;
  for (size_t e = 0; e < examples; ++e) {
    bool all = true;
    for (size_t j = 0; j < width; ++j) all &= (in.predictions[e * width + j] != 0) == (in.labels[e * width + j] != 0);
    exact += all;
  }
  return examples == 0 ? 0.0 : static_cast<double>(exact) / static_cast<double>(examples);
}

}  // namespace runner
