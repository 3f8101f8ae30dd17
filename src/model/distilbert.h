// DistilBertForSequenceClassification in LibTorch, module for module as
// transformers 4.40 builds it: named_parameters() are Hugging Face's state-dict
// keys in its order, and the padded forward performs Hugging Face's op sequence.
#pragma once

#include "model/distilbert_config.h"
#include "model/model.h"
#include "model/packed_attention.h"

namespace runner {

// Per-batch tensors shared by every layer.
struct DistilBertAttentionInputs {
  torch::Tensor padding;      // [B, 1, 1, L] bool, true at padding: the scores masked_fill'ed
  torch::Tensor token_index;  // unpadded only: [T] flat positions of the real tokens in B*L
  std::shared_ptr<const PackedSequences> sequences;  // unpadded only: the sequences in the T
  int64_t batch = 0, length = 0;
};

class DistilBertEmbeddings : public torch::nn::Module {
 public:
  explicit DistilBertEmbeddings(const DistilBertConfig& c);
  // ids and position ids of broadcastable shapes; adds a trailing dim axis.
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& position_ids);
  // create_sinusoidal_embeddings: the fixed table, frozen as Hugging Face freezes it.
  void fill_sinusoidal_positions();
  torch::nn::Embedding word_embeddings{nullptr}, position_embeddings{nullptr};
  torch::nn::LayerNorm layer_norm{nullptr};
  double dropout_p;
};

class DistilBertSelfAttention : public torch::nn::Module {
 public:
  explicit DistilBertSelfAttention(const DistilBertConfig& c);
  // x [B, L, dim] (padded) or [T, dim] (unpadded, then `a.token_index` is set).
  torch::Tensor forward(const torch::Tensor& x, const DistilBertAttentionInputs& a);
  torch::nn::Linear q_lin{nullptr}, k_lin{nullptr}, v_lin{nullptr}, out_lin{nullptr};
  int64_t heads, head_dim;
  double dropout_p;

 private:
  // q, k, v [B, heads, L, d] -> context [B, heads, L, d]
  torch::Tensor attend(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                       const torch::Tensor& padding);
  torch::Tensor forward_unpadded(const torch::Tensor& x, const DistilBertAttentionInputs& a);
};

class DistilBertFfn : public torch::nn::Module {
 public:
  explicit DistilBertFfn(const DistilBertConfig& c);
  torch::Tensor forward(const torch::Tensor& x);
  torch::nn::Linear lin1{nullptr}, lin2{nullptr};
  std::string activation;
  double dropout_p;
};

// Post-LN: sa_layer_norm(attention(x) + x), then output_layer_norm(ffn(h) + h).
class DistilBertBlock : public torch::nn::Module {
 public:
  explicit DistilBertBlock(const DistilBertConfig& c);
  torch::Tensor forward(const torch::Tensor& x, const DistilBertAttentionInputs& a);
  std::shared_ptr<DistilBertSelfAttention> attention;
  torch::nn::LayerNorm sa_layer_norm{nullptr}, output_layer_norm{nullptr};
  std::shared_ptr<DistilBertFfn> ffn;
};

class DistilBertForSequenceClassification : public SequenceClassifier {
 public:
  // Init::HuggingFace draws as transformers' constructor does (the base
  // model's post_init before the head is built); Init::None keeps LibTorch's
  // constructor draws, for weights loaded next.
  explicit DistilBertForSequenceClassification(DistilBertConfig config, Init init = Init::None);

  // token_type_ids are ignored; `pooled` is the [CLS] hidden state the head reads.
  ModelOutput forward(const ModelBatch& batch, const ForwardOptions& options = {}) override;
  nlohmann::json hf_config() const override { return distilbert_config_to_json(config_); }
  long long num_labels() const override { return config_.labels.num_labels; }
  void set_execution(Execution e) override { execution_ = e; }
  Execution execution() const override { return execution_; }
  bool uses_token_type_ids() const override { return false; }
  std::string label_name(long long id) const override { return config_.labels.label_name(id); }
  // Hugging Face's _init_weights; with sinusoidal_pos_embds the position table
  // is then the fixed sinusoid (after its normal_ draw, as in transformers).
  void init_weights(const std::vector<std::string>& only = {}) override;

  const DistilBertConfig& config() const { return config_; }

 private:
  torch::Tensor encode_padded(const ModelBatch& b, const ForwardOptions& o, ModelOutput& out);
  torch::Tensor encode_unpadded(const ModelBatch& b);  // returns the [CLS] hidden states
  torch::Tensor classify(const torch::Tensor& cls);

  DistilBertConfig config_;
  Execution execution_ = Execution::Unpadded;
  std::shared_ptr<DistilBertEmbeddings> embeddings_;
  torch::nn::ModuleList layers_;
  torch::nn::Linear pre_classifier_{nullptr}, classifier_{nullptr};
};

}  // namespace runner
