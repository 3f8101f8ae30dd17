// Evaluation metrics. One input holds what any problem type's metrics read:
// class ids (single-label), 0/1 per label (multi-label) or numbers (regression).
#pragma once

#include "registry/problem_type.h"
#include "train/metrics_squad.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace runner {

struct MetricInput {
  // Single-label: one predicted and one true class id per example.
  // Multi-label: `label_count` 0/1 decisions per example, example after example.
  std::vector<long long> predictions;
  std::vector<long long> labels;
  ProblemType problem = ProblemType::SingleLabel;
  long long label_count = 0;   // multi-label: the labels each example has a decision for
  std::vector<double> scores;  // regression: the predicted values
  std::vector<double> targets; // regression: the true values
  // Token classification: predictions and labels hold the tag ids of the
  // labelled tokens, sentence after sentence, each sentence closed by
  // kSentenceEnd in both (so that ranks' inputs concatenate); tag_names names the ids.
  std::vector<std::string> tag_names;
  // Question answering: each question's post-processed answer and its gold
  // answers (train/metrics_squad.h); squad_v2 scores unanswerable questions too.
  std::vector<SquadPrediction> answers;
  std::vector<SquadReference> references;
  bool squad_v2 = false;
};

constexpr long long kSentenceEnd = -1;

// A metric's value. An input for which the metric is undefined (Pearson of a
// constant prediction) gets a defined stand-in and a warning saying so.
struct MetricValue {
  MetricValue(double v = 0.0, std::string w = {}) : value(v), warning(std::move(w)) {}
  double value;
  std::string warning;
};

using MetricFn = std::function<MetricValue(const MetricInput&)>;
using MetricFactory = std::function<MetricFn()>;

// Single-label classification. F1 and precision/recall of a class that is
// never predicted (or never true) are 0, scikit-learn's zero_division=0; the
// averages run over the classes seen in the labels or the predictions, as
// scikit-learn's do when no class list is given.
double accuracy(const MetricInput& in);
double f1_positive(const MetricInput& in);  // F1 of class 1, as GLUE reports for MRPC; ids 0 and 1 only
double macro_f1(const MetricInput& in);
double micro_f1(const MetricInput& in);     // multi-label too: over every (example, label) decision
double weighted_f1(const MetricInput& in);  // each class's F1 weighted by its true examples
double matthews_corr(const MetricInput& in);  // Gorodkin's R_K; the binary MCC for two classes

// Per class seen in the labels or the predictions (at most kMaxClassesDetailed
// of them, else null): {"classes", "precision", "recall", "f1", "support",
// "confusion"}, lists in class order; confusion[i][j] counts examples of class
// i predicted as class j, as scikit-learn's confusion_matrix.
constexpr size_t kMaxClassesDetailed = 32;
nlohmann::json per_class_details(const MetricInput& in);

// Multi-label classification.
double multi_label_macro_f1(const MetricInput& in);  // mean over every label, an empty one included
double subset_accuracy(const MetricInput& in);       // examples with every label decided right
// Per label, in label order (null past kMaxClassesDetailed labels): {"precision",
// "recall", "f1", "support"}, each decision of a label counted as scikit-learn's
// precision_recall_fscore_support(average=None) counts a multi-label indicator matrix.
nlohmann::json per_label_details(const MetricInput& in);

// Token classification (NER), as seqeval's default (lenient) mode scores the
// sentences' tags (train/metrics_entities.h): entity-level micro precision,
// recall and F1, token accuracy, and per entity type (types in byte order)
// {"names", "precision", "recall", "f1", "support"}, read as a per-class table.
double entity_precision(const MetricInput& in);
double entity_recall(const MetricInput& in);
double entity_f1(const MetricInput& in);
double token_accuracy(const MetricInput& in);
nlohmann::json per_entity_details(const MetricInput& in);

// Question answering: the official SQuAD v1.1 or (squad_v2) v2.0 exact match
// and F1 of the answers against the references, in percent; and for v2.0 the
// answerable and unanswerable questions' own scores ({"HasAns_exact",
// "HasAns_f1", "HasAns_total", "NoAns_..."}, those that have questions).
double squad_exact_match(const MetricInput& in);
double squad_f1(const MetricInput& in);
nlohmann::json squad_v2_splits(const MetricInput& in);

// Regression. A constant prediction or target has no correlation: reported as 0
// with a warning (SciPy returns nan and warns ConstantInputWarning).
MetricValue pearson(const MetricInput& in);
MetricValue spearman(const MetricInput& in);  // Pearson of the ranks; ties share their mean rank
double mean_squared_error(const MetricInput& in);

// {name: value} for each named metric component. A degenerate input's warning
// goes to the MetricWarnings in scope, once per metric; an unknown name or a
// metric that does not fit the input's problem type is an InputError.
nlohmann::json compute_metrics(const std::vector<std::string>& names, const MetricInput& in);

// While one lives, metric warnings go to `sink` (a run's log, `runner
// evaluate`'s notes), each metric's once; without one they go nowhere.
class MetricWarnings {
 public:
  explicit MetricWarnings(std::function<void(const std::string&)> sink);
  ~MetricWarnings();
  MetricWarnings(const MetricWarnings&) = delete;
  MetricWarnings& operator=(const MetricWarnings&) = delete;
};

}  // namespace runner
