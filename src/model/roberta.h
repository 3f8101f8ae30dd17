// RobertaForSequenceClassification in LibTorch, as transformers builds it. Its
// encoder layers and embeddings are BERT's (bert.h); what differs: positions
// count from pad_token_id + 1 over the non-pad tokens, one token type (the
// batch's type ids are not read, as Transformers' RoBERTa tokenizers do not
// give them), and a head on the <s> token with no pooler.
#pragma once

#include "model/bert.h"
#include "model/encoder_with_head.h"

namespace runner {

// dropout -> dense -> tanh -> dropout -> out_proj on the <s> hidden state.
class RobertaClassificationHead : public torch::nn::Module {
 public:
  explicit RobertaClassificationHead(const BertConfig& c);
  torch::Tensor forward(const torch::Tensor& first_token);
  torch::nn::Linear dense{nullptr}, out_proj{nullptr};
  double dropout_p;
};

// Transformers' create_position_ids_from_input_ids: each non-pad token's count
// of non-pad tokens up to it, plus pad_token_id; pad tokens get pad_token_id.
torch::Tensor roberta_position_ids(const torch::Tensor& input_ids, long long pad_token_id);

// RobertaModel: BERT's embeddings and layers, positions from the pad id, one
// token type; no pooler (neither of Transformers' heads here reads one).
class RobertaModel : public Encoder {
 public:
  explicit RobertaModel(const BertConfig& c);

 private:
  torch::Tensor encode_padded(const ModelBatch& b, const ForwardOptions& o,
                              std::vector<torch::Tensor>& hidden_states) override;
  torch::Tensor encode_unpadded(const ModelBatch& b, const PackedTokens& packed) override;
  bool can_keep_first_tokens_only() const override { return true; }

  long long pad_token_id_;
  std::shared_ptr<BertEmbeddings> embeddings_;
  torch::nn::ModuleList layers_;
};

class RobertaForSequenceClassification : public EncoderWithHead {
 public:
  // Init::HuggingFace draws as transformers' constructor does; Init::None keeps
  // LibTorch's constructor draws, for weights loaded next.
  explicit RobertaForSequenceClassification(BertConfig config, Init init = Init::None);

  nlohmann::json hf_config() const override;
  long long num_labels() const override { return config_.num_labels; }
  std::string label_name(long long id) const override { return config_.label_name(id); }
  void init_weights(const std::vector<std::string>& only = {}) override;

  const BertConfig& config() const { return config_; }

 private:
  torch::Tensor head(const EncoderOutput& encoded, ModelOutput& out) override;
  std::string problem_type() const override { return config_.problem_type; }

  BertConfig config_;
  std::shared_ptr<RobertaClassificationHead> head_;
};

}  // namespace runner
