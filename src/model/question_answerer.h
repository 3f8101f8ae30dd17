// Transformers' *ForQuestionAnswering on any family's encoder: a Linear with
// two outputs ("qa_outputs"; ModernBERT: its prediction head "head", then
// "classifier") on every token's last hidden state, whose two columns are the
// start and end logits of an answer span. DistilBERT drops out at qa_dropout
// before it, ModernBERT at classifier_dropout; the others not at all.
#pragma once

#include "model/token_classifier.h"

namespace runner {

class QuestionAnswerer : public EncoderWithHead {
 public:
  // spec.num_labels must be 2 (an InputError naming the config otherwise).
  QuestionAnswerer(TokenHeadSpec spec, Init init);

  nlohmann::json hf_config() const override { return spec_.hf_config; }
  long long num_labels() const override { return 2; }
  void init_weights(const std::vector<std::string>& only = {}) override;
  // Transformers' start and end softmax run over every position, padding
  // included (on, the default of a model loaded from a folder): the model then
  // runs padded, since a packed forward has no hidden state there. Off (a
  // recipe's default), the softmax runs over each row's tokens only: the
  // padding's logits are finfo.min, and the execution asked for stands.
  void set_loss_over_padding(bool on) override;
  void set_execution(Execution e) override;

 private:
  // Logits [B, L, 2]: column 0 the start logits, column 1 the end logits.
  torch::Tensor head(const EncoderOutput& encoded, ModelOutput& out) override;
  // Labels [B, 2]: each row's start and end token. Transformers' loss: positions
  // clamped to [0, L], L ignored (an answer cut off by truncation), the mean of
  // the start and the end cross-entropy. Over the tokens only, a position at
  // the padding is ignored too.
  torch::Tensor loss(const torch::Tensor& logits, const ModelBatch& batch, const ForwardOptions& options) override;
  std::string problem_type() const override { return {}; }

  // Logits [B, L, 2] from the head's rows, packed or padded, finfo.min at the padding.
  torch::Tensor tokens_only(const torch::Tensor& rows, const EncoderOutput& encoded) const;

  TokenHeadSpec spec_;
  torch::nn::Linear outputs_{nullptr};
  bool over_padding_ = true;
  Execution asked_ = Execution::Unpadded;  // the execution set_execution asked for
};

}  // namespace runner
