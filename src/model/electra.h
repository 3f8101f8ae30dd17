// ElectraForSequenceClassification (the discriminator) in LibTorch, as
// transformers 4.40 builds it. Its encoder layers are BERT's (bert.h) and its
// embeddings are BERT's at embedding_size, projected to hidden_size when the two
// differ; the head reads the [CLS] token with no pooler.
#pragma once

#include "model/bert.h"
#include "model/electra_config.h"
#include "model/encoder_with_head.h"

namespace runner {

// dropout -> dense -> GELU (erf) -> dropout -> out_proj on the [CLS] hidden state.
class ElectraClassificationHead : public torch::nn::Module {
 public:
  explicit ElectraClassificationHead(const BertConfig& c);  // the encoder settings
  torch::Tensor forward(const torch::Tensor& cls);
  torch::nn::Linear dense{nullptr}, out_proj{nullptr};
  double dropout_p;
};

// ElectraModel: BERT's embeddings at embedding_size, projected to hidden_size
// when the two differ, then BERT's layers; no pooler.
class ElectraModel : public Encoder {
 public:
  explicit ElectraModel(const ElectraConfig& c);

 private:
  torch::Tensor embed(const torch::Tensor& ids, const torch::Tensor& types, const torch::Tensor& positions);
  // hidden_states[0] is the embeddings' output after embeddings_project, as Hugging Face returns it.
  torch::Tensor encode_padded(const ModelBatch& b, const ForwardOptions& o,
                              std::vector<torch::Tensor>& hidden_states) override;
  torch::Tensor encode_unpadded(const ModelBatch& b, const PackedTokens& packed) override;
  bool can_keep_first_tokens_only() const override { return true; }

  std::shared_ptr<BertEmbeddings> embeddings_;
  torch::nn::Linear embeddings_project_{nullptr};  // null when embedding_size == hidden_size
  torch::nn::ModuleList layers_;
};

class ElectraForSequenceClassification : public EncoderWithHead {
 public:
  // Init::HuggingFace draws as transformers' constructor does (the base
  // model's post_init before the head is built); Init::None keeps LibTorch's
  // constructor draws, for weights loaded next.
  explicit ElectraForSequenceClassification(ElectraConfig config, Init init = Init::None);

  nlohmann::json hf_config() const override { return electra_config_to_json(config_); }
  long long num_labels() const override { return config_.encoder.num_labels; }
  std::string label_name(long long id) const override { return config_.encoder.label_name(id); }
  void init_weights(const std::vector<std::string>& only = {}) override;

  const ElectraConfig& config() const { return config_; }

 private:
  // `pooled` is the [CLS] hidden state the head reads.
  torch::Tensor head(const EncoderOutput& encoded, ModelOutput& out) override;
  std::string problem_type() const override { return config_.encoder.problem_type; }

  ElectraConfig config_;
  std::shared_ptr<ElectraClassificationHead> head_;
};

}  // namespace runner
