// Transformers' *ForTokenClassification on any family's encoder: dropout and
// a Linear ("classifier") on every token's last hidden state; ModernBERT puts
// its prediction head ("head") first. The same few lines for every family,
// which supplies only what differs (TokenHeadSpec, which the question
// answering head reads too).
#pragma once

#include "model/encoder_with_head.h"

#include <functional>
#include <memory>
#include <string>

namespace runner {

struct TokenHeadSpec {
  std::string encoder_name;  // the base model's state-dict name ("bert")
  std::shared_ptr<Encoder> encoder;
  int64_t hidden_size = 0;
  long long num_labels = 0;
  double dropout = 0.0;  // the family's dropout before the classifier
  // ModernBERT's prediction head, registered as "head" and applied first; else null.
  std::shared_ptr<torch::nn::Module> prediction_head;
  std::function<torch::Tensor(const torch::Tensor&)> apply_prediction_head;
  // The output Linear's name: "classifier", or "qa_outputs" for most families'
  // question answering head (model/question_answerer.h).
  std::string output_name = "classifier";
  // The family's config.json (its architectures are replaced by the token head's).
  nlohmann::json hf_config;
  // The family's _init_weights over the whole model's named_parameters().
  std::function<void(torch::nn::Module& model, const std::vector<std::string>& only)> init;
};

class TokenClassifier : public EncoderWithHead {
 public:
  // Init::HuggingFace initialises every weight by the family's rule once the
  // modules are built; Init::None keeps LibTorch's draws, for weights loaded next.
  TokenClassifier(TokenHeadSpec spec, Init init);

  nlohmann::json hf_config() const override { return spec_.hf_config; }
  long long num_labels() const override { return spec_.num_labels; }
  std::string label_name(long long id) const override;
  void init_weights(const std::vector<std::string>& only = {}) override;

 private:
  // Logits [B, L, num_labels]; zero at the padding of a packed forward.
  torch::Tensor head(const EncoderOutput& encoded, ModelOutput& out) override;
  // Cross-entropy (mean) over the tokens whose label is not -100; labels [B, L].
  torch::Tensor loss(const torch::Tensor& logits, const ModelBatch& batch, const ForwardOptions& options) override;
  std::string problem_type() const override { return "single_label_classification"; }

  TokenHeadSpec spec_;
  torch::nn::Linear classifier_{nullptr};
};

}  // namespace runner
