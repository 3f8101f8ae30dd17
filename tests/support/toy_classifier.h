// The part of a test's small TaskModel that is always the same: two
// labels, no Hugging Face config, one execution mode, and a cross-entropy loss
// that a batch holding a negative input id poisons with NaN, as an overflow would.
#pragma once

#include "train/batch_source.h"
#include "model/model.h"

#include <cmath>
#include <string>

namespace runner::test {

class ToyClassifierBase : public TaskModel {
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

// Two examples of two ids each, first_id .. first_id + 3, labelled 0 and 1;
// `poisoned` makes the ids negative, so the batch's loss is NaN.
inline TrainBatch toy_batch(int first_id, bool poisoned = false) {
  int64_t sign = poisoned ? -1 : 1;
  TrainBatch b;
  b.tensors.input_ids =
      torch::tensor({{first_id, first_id + 1}, {first_id + 2, first_id + 3}}).to(torch::kInt64) * sign;
  b.tensors.token_type_ids = torch::zeros({2, 2}, torch::kInt64);
  b.tensors.attention_mask = torch::ones({2, 2}, torch::kInt64);
  b.tensors.labels = torch::tensor({int64_t{0}, int64_t{1}});
  b.example_ids = {"toy/" + std::to_string(first_id), "toy/" + std::to_string(first_id + 1)};
  b.examples = 2;
  b.tokens = 4;
  return b;
}

}  // namespace runner::test
