// The part of a test's small SequenceClassifier that is always the same: two
// labels, no Hugging Face config, one execution mode, and a cross-entropy loss
// that a batch holding a negative input id poisons with NaN, as an overflow would.
#pragma once

#include "model/model.h"

#include <cmath>

namespace runner::test {

class ToyClassifierBase : public SequenceClassifier {
 public:
  nlohmann::json hf_config() const override { return nlohmann::json::object(); }
  long long num_labels() const override { return 2; }
  void set_execution(Execution) override {}
  Execution execution() const override { return Execution::Padded; }
  void init_weights(const std::vector<std::string>&) override {}

 protected:
  static ModelOutput classify(const torch::Tensor& logits, const ModelBatch& batch) {
    ModelOutput out;
    out.logits = logits;
    out.loss = torch::nn::functional::cross_entropy(logits, batch.labels);
    if ((batch.input_ids < 0).any().item<bool>()) out.loss = out.loss * std::nan("");
    return out;
  }
};

}  // namespace runner::test
