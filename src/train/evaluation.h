// What an evaluation adds up over its batches: the example-weighted loss and
// the predicted and true class ids the metrics read. The trainer's evaluation
// and `runner evaluate` (run/split_evaluation.h) both tally with it, so a
// checkpoint evaluated later reports what its run reported.
#pragma once

#include "model/model.h"
#include "train/batch_source.h"
#include "train/metric.h"
#include "train/qa_postprocess.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

struct EvalTally {
  EvalTally() = default;
  // Tallies as `set`'s problem type reads its outputs (a multi-label decision
  // is a sigmoid above set.threshold).
  explicit EvalTally(const EvalSet& set);
  MetricInput in;
  double threshold = 0.5;
  std::vector<std::string> label_names;  // by class id; the tables' "names"
  double loss_sum = 0.0;  // each batch's mean loss times its examples
  long long examples = 0;
  // With keep_records: one object per example for a metric command: its id,
  // label, prediction and logits (train/metric_command.h).
  bool keep_records = false;
  std::vector<nlohmann::json> records;
  // Question answering: the set's questions, and each window's logits so far.
  std::shared_ptr<const QaEvalData> qa;
  std::vector<QaWindow> windows;

  // One batch's output; reads its loss and argmax (regression: the scores,
  // multi-label: each label's decision) back to the host.
  void add(const ModelOutput& out, const TrainBatch& batch);
  // {"loss": mean loss, "examples": n, <metric>: value ..., "per_class": {...}} for the
  // metric components named; per_class (train/metric.h) for single-label tasks of few classes,
  // per_label for multi-label tasks of few labels, each with the "names" of its classes.
  nlohmann::json results(const std::vector<std::string>& metrics) const;
};

// A companion set's results into its evaluation's, each key with `suffix`
// ("accuracy" -> "accuracy_mm").
void add_companion_results(nlohmann::json& into, const nlohmann::json& results, const std::string& suffix);

}  // namespace runner
