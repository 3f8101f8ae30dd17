// ModernBertForSequenceClassification in LibTorch, as transformers builds it:
// pre-norm layers (the first without its attention norm), one fused Wqkv,
// rotary positions (a base per layer kind), full attention in some layers and
// a +- local_attention / 2 window in the others, a GeGLU feed-forward, a final
// norm, then a dense + activation + norm head over the first token or the mean
// of the real ones. Norms and projections carry no bias unless the config says.
#pragma once

#include "model/encoder_with_head.h"
#include "model/modernbert_config.h"
#include "model/packed_attention.h"

namespace runner {

// LayerNorm whose bias is optional (ModernBERT's norm_bias), under the names
// Hugging Face gives it ("weight", and "bias" when present).
class OptionalBiasNorm : public torch::nn::Module {
 public:
  OptionalBiasNorm(int64_t width, double eps, bool bias);
  torch::Tensor forward(const torch::Tensor& x);
  torch::Tensor weight, bias;
  double eps;
};

// cos and sin of the rotary angles for positions 0..length-1: [length, head_dim].
std::pair<torch::Tensor, torch::Tensor> rotary_tables(int64_t length, int64_t head_dim, double theta,
                                                      const torch::Device& device);

// What a layer's attention needs besides its input. Padded: the additive mask
// [B, 1, L, L] and the rotary tables [L, d]. Unpadded (`sequences` set): the
// tables at each real token's column [T, d] and the local layers' window.
struct ModernBertAttentionInputs {
  torch::Tensor mask, cos, sin;
  std::shared_ptr<const PackedSequences> sequences;
  int64_t window = -1;
};

class ModernBertLayer : public torch::nn::Module {
 public:
  ModernBertLayer(const ModernBertConfig& c, bool first);
  // hidden [B, L, H] (padded) or [T, H] (unpadded); `a` for this layer's kind.
  torch::Tensor forward(const torch::Tensor& hidden, const ModernBertAttentionInputs& a);

 private:
  torch::Tensor attend(const torch::Tensor& x, const ModernBertAttentionInputs& a);
  torch::Tensor attend_unpadded(const torch::Tensor& x, const ModernBertAttentionInputs& a);
  ModernBertConfig config_;
  std::shared_ptr<OptionalBiasNorm> attn_norm_, mlp_norm_;  // attn_norm_ null in the first layer
  torch::nn::Linear wqkv_{nullptr}, attn_out_{nullptr}, wi_{nullptr}, mlp_out_{nullptr};
};

// ModernBertModel: embeddings, the layers and the final norm.
class ModernBertModel : public Encoder {
 public:
  explicit ModernBertModel(const ModernBertConfig& c);

 private:
  // Whether the packed kernels take this forward (model/packed_attention.h).
  bool runs_packed(const ModelBatch& b, const ForwardOptions& o) const override;
  torch::Tensor encode_padded(const ModelBatch& b, const ForwardOptions& o,
                              std::vector<torch::Tensor>& hidden_states) override;
  torch::Tensor encode_unpadded(const ModelBatch& b, const PackedTokens& packed) override;

  ModernBertConfig config_;
  torch::nn::Embedding tok_embeddings_{nullptr};
  std::shared_ptr<OptionalBiasNorm> embeddings_norm_, final_norm_;
  torch::nn::ModuleList layers_;
};

// ModernBERT's _init_weights: truncated normals (cutoff initializer_cutoff_factor
// standard deviations), the output projections and the head's dense scaled by
// 1 / sqrt(2 * layers), the classifier by 1 / sqrt(hidden_size); norms 1, biases 0.
void init_modernbert_weights(torch::nn::Module& model, const ModernBertConfig& c, const std::vector<std::string>& only);

// ModernBertPredictionHead: dense, activation, norm (a task head's first part).
class ModernBertPredictionHead : public torch::nn::Module {
 public:
  explicit ModernBertPredictionHead(const ModernBertConfig& c);
  torch::Tensor forward(const torch::Tensor& x);
  torch::nn::Linear dense{nullptr};
  std::shared_ptr<OptionalBiasNorm> norm;
  std::string activation;
};

class ModernBertForSequenceClassification : public EncoderWithHead {
 public:
  explicit ModernBertForSequenceClassification(ModernBertConfig config, Init init = Init::None);

  nlohmann::json hf_config() const override { return modernbert_config_to_json(config_); }
  long long num_labels() const override { return config_.labels.num_labels; }
  std::string label_name(long long id) const override { return config_.labels.label_name(id); }
  void init_weights(const std::vector<std::string>& only = {}) override;

 private:
  // The first token or the mean of the real ones, the prediction head, dropout, classifier.
  torch::Tensor head(const EncoderOutput& encoded, ModelOutput& out) override;
  std::string problem_type() const override { return config_.labels.problem_type; }

  ModernBertConfig config_;
  std::shared_ptr<ModernBertPredictionHead> head_;
  torch::nn::Linear classifier_{nullptr};
};

}  // namespace runner
