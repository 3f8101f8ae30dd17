// ModernBertForSequenceClassification in LibTorch, as transformers builds it:
// pre-norm layers (the first without its attention norm), one fused Wqkv,
// rotary positions (a base per layer kind), full attention in some layers and
// a +- local_attention / 2 window in the others, a GeGLU feed-forward, a final
// norm, then a dense + activation + norm head over the first token or the mean
// of the real ones. Norms and projections carry no bias unless the config says.
#pragma once

#include "model/model.h"
#include "model/modernbert_config.h"

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

class ModernBertLayer : public torch::nn::Module {
 public:
  ModernBertLayer(const ModernBertConfig& c, bool first);
  // `mask`: additive [B, 1, L, L]; `cos`, `sin`: this layer kind's rotary tables.
  torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& mask, const torch::Tensor& cos,
                        const torch::Tensor& sin);

 private:
  torch::Tensor attend(const torch::Tensor& x, const torch::Tensor& mask, const torch::Tensor& cos,
                       const torch::Tensor& sin);
  ModernBertConfig config_;
  std::shared_ptr<OptionalBiasNorm> attn_norm_, mlp_norm_;  // attn_norm_ null in the first layer
  torch::nn::Linear wqkv_{nullptr}, attn_out_{nullptr}, wi_{nullptr}, mlp_out_{nullptr};
};

class ModernBertForSequenceClassification : public SequenceClassifier {
 public:
  explicit ModernBertForSequenceClassification(ModernBertConfig config, Init init = Init::None);

  ModelOutput forward(const ModelBatch& batch, const ForwardOptions& options = {}) override;
  nlohmann::json hf_config() const override { return modernbert_config_to_json(config_); }
  long long num_labels() const override { return config_.labels.num_labels; }
  void set_execution(Execution) override {}  // padded, with the window in the mask
  Execution execution() const override { return Execution::Padded; }
  std::string label_name(long long id) const override { return config_.labels.label_name(id); }
  // ModernBERT's _init_weights: truncated normals (cutoff initializer_cutoff_factor
  // standard deviations), the output projections scaled by 1 / sqrt(2 * layers),
  // the classifier by 1 / sqrt(hidden_size); norms 1, biases 0.
  void init_weights(const std::vector<std::string>& only = {}) override;

 private:
  torch::Tensor pool(const torch::Tensor& h, const torch::Tensor& attention_mask) const;

  ModernBertConfig config_;
  torch::nn::Embedding tok_embeddings_{nullptr};
  std::shared_ptr<OptionalBiasNorm> embeddings_norm_, final_norm_, head_norm_;
  torch::nn::ModuleList layers_;
  torch::nn::Linear head_dense_{nullptr}, classifier_{nullptr};
};

}  // namespace runner
