#include "train/class_weights.h"

#include "util/diagnostic.h"

#include <fmt/format.h>

namespace runner {
namespace {

InputError weights_error(const std::string& key, const std::string& what, const std::string& hint) {
  return InputError(make_error({}, "train." + key, what, hint));
}

std::vector<double> balanced_classes(const TokenizedSplit& train, long long num_labels) {
  std::vector<double> count(static_cast<size_t>(num_labels), 0.0);
  for (int64_t label : train.labels)
    if (label >= 0 && label < num_labels) count[static_cast<size_t>(label)] += 1.0;
  std::vector<double> weights;
  const double n = static_cast<double>(train.size());
  for (long long c = 0; c < num_labels; ++c) {
    if (count[static_cast<size_t>(c)] == 0.0)
      throw weights_error("class_weighting",
                          fmt::format("class {} has no training example, so its balanced weight "
                                      "n_samples / (n_classes * count) is undefined", c),
                          "list the weights in train.class_weights, or train on a split with every class");
    weights.push_back(n / (static_cast<double>(num_labels) * count[static_cast<size_t>(c)]));
  }
  return weights;
}

std::vector<double> balanced_labels(const TokenizedSplit& train, long long num_labels) {
  std::vector<double> positives(static_cast<size_t>(num_labels), 0.0);
  for (size_t i = 0; i < train.size(); ++i)
    for (long long k = 0; k < num_labels; ++k) positives[static_cast<size_t>(k)] += train.targets_of(i)[k];
  std::vector<double> weights;
  const double n = static_cast<double>(train.size());
  for (long long k = 0; k < num_labels; ++k) {
    double pos = positives[static_cast<size_t>(k)];
    if (pos == 0.0)
      throw weights_error("class_weighting",
                          fmt::format("label {} is on no training example, so its balanced pos_weight "
                                      "(negatives / positives) is undefined", k),
                          "list the weights in train.class_weights, or train on a split where every label occurs");
    weights.push_back((n - pos) / pos);
  }
  return weights;
}

}  // namespace

std::vector<double> resolve_class_weights(const TrainerConfig& config, const TokenizedSplit& train,
                                          ProblemType problem, long long num_labels) {
  const bool balanced = config.class_weighting == ClassWeighting::Balanced;
  if (!balanced && config.class_weights.empty()) return {};
  const std::string key = balanced ? "class_weighting" : "class_weights";
  if (balanced && !config.class_weights.empty())
    throw weights_error("class_weights", "class_weights and class_weighting = \"balanced\" are both set",
                        "keep one: the listed weights, or the balanced ones computed from the training split");
  if (problem == ProblemType::Regression)
    throw weights_error(key, "class weights apply to classification, and this dataset is a regression",
                        "remove train." + key);
  if (balanced && problem == ProblemType::TokenClassification)
    throw weights_error(key, "balanced class weights are counted over examples, and this dataset labels tokens",
                        "list one weight per tag in train.class_weights, or remove train.class_weighting");
  if (balanced)
    return problem == ProblemType::MultiLabel ? balanced_labels(train, num_labels)
                                              : balanced_classes(train, num_labels);
  if (static_cast<long long>(config.class_weights.size()) != num_labels)
    throw weights_error("class_weights",
                        fmt::format("lists {} weights, but the dataset has {} {}", config.class_weights.size(),
                                    num_labels, problem == ProblemType::MultiLabel ? "labels" : "classes"),
                        fmt::format("list one weight per {} (data.num_labels = {})",
                                    problem == ProblemType::MultiLabel ? "label" : "class", num_labels));
  return config.class_weights;
}

}  // namespace runner
