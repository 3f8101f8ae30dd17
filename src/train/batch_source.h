// What the trainer needs from the data side: micro-batches addressed by
// (epoch, index), so that a resumed run can continue mid-epoch with exactly the
// same order, and a fixed evaluation set.
#pragma once

#include "model/model.h"
#include "registry/problem_type.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace runner {

struct TrainBatch {
  ModelBatch tensors;
  std::vector<std::string> example_ids;  // named in NaN-loss errors
  long long examples = 0;
  long long tokens = 0;  // non-padding tokens
  // Token classification: the tokens whose label is not -100; 0 for whole-sequence tasks.
  long long labelled_tokens = 0;
};

class BatchSource {
 public:
  virtual ~BatchSource() = default;
  virtual long long batches_per_epoch() const = 0;
  // Fixes the order of `epoch`; the same epoch always gives the same order.
  virtual void start_epoch(long long epoch) = 0;
  virtual TrainBatch batch(long long index) = 0;  // index within the started epoch
  // Anything beyond (epoch, index) the order depends on, saved in the training state.
  virtual nlohmann::json state() const { return nlohmann::json::object(); }
  virtual void load_state(const nlohmann::json&) {}
};

// A BatchSource over batches built up front, in a fixed order every epoch.
class FixedBatches : public BatchSource {
 public:
  explicit FixedBatches(std::vector<TrainBatch> batches) : batches_(std::move(batches)) {}
  long long batches_per_epoch() const override { return static_cast<long long>(batches_.size()); }
  void start_epoch(long long) override {}
  TrainBatch batch(long long index) override { return batches_.at(static_cast<size_t>(index)); }

 private:
  std::vector<TrainBatch> batches_;
};

struct QaEvalData;  // train/qa_evaluation.h

struct EvalSet {
  std::vector<TrainBatch> batches;  // labels set
  std::vector<std::string> metrics;  // metric component names, e.g. {"accuracy", "f1"}
  ProblemType problem = ProblemType::SingleLabel;
  double threshold = 0.5;  // multi-label: the sigmoid a predicted label exceeds
  std::vector<std::string> label_names;  // by class id: named in the per-class tables
  // Sets evaluated with this one, each result's keys carrying `suffix` in the
  // same evaluation event (MNLI's mismatched dev set: "accuracy_mm").
  struct Companion {
    std::string suffix;
    std::vector<TrainBatch> batches;
  };
  std::vector<Companion> companions;
  // Question answering: the questions and each window's place in its context,
  // to turn the windows' logits into answers (row i of the batches, in order, is window i).
  std::shared_ptr<const QaEvalData> qa;
};

}  // namespace runner
