// DistilBertForSequenceClassification in LibTorch, module for module as
// transformers 4.40 builds it: named_parameters() are Hugging Face's state-dict
// keys in its order, and the padded forward performs Hugging Face's op sequence.
#pragma once

#include "model/distilbert_config.h"
#include "model/encoder_with_head.h"
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
  // With `rows` (unpadded only): the output of just those rows, whose attention
  // still reads every token.
  torch::Tensor forward(const torch::Tensor& x, const DistilBertAttentionInputs& a,
                        const torch::Tensor& rows = {});
  torch::nn::Linear q_lin{nullptr}, k_lin{nullptr}, v_lin{nullptr}, out_lin{nullptr};
  int64_t heads, head_dim;
  double dropout_p;

 private:
  // q, k, v [B, heads, L, d] -> context [B, heads, L, d]
  torch::Tensor attend(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                       const torch::Tensor& padding);
  torch::Tensor forward_unpadded(const torch::Tensor& x, const DistilBertAttentionInputs& a,
                                 const torch::Tensor& rows);
};

class DistilBertFfn : public torch::nn::Module {
 public:
  explicit DistilBertFfn(const DistilBertConfig& c);
  // `rows`: x holds those rows of the layer's tokens; the dropout draws the
  // masks of their places.
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& rows = {});
  torch::nn::Linear lin1{nullptr}, lin2{nullptr};
  std::string activation;
  double dropout_p;
};

// Post-LN: sa_layer_norm(attention(x) + x), then output_layer_norm(ffn(h) + h).
class DistilBertBlock : public torch::nn::Module {
 public:
  explicit DistilBertBlock(const DistilBertConfig& c);
  // `rows`: as the attention's; the feed-forward then runs on those rows only.
  torch::Tensor forward(const torch::Tensor& x, const DistilBertAttentionInputs& a, const torch::Tensor& rows = {});
  std::shared_ptr<DistilBertSelfAttention> attention;
  torch::nn::LayerNorm sa_layer_norm{nullptr}, output_layer_norm{nullptr};
  std::shared_ptr<DistilBertFfn> ffn;
};

// DistilBertModel: embeddings (no token types) and the transformer blocks.
class DistilBertModel : public Encoder {
 public:
  explicit DistilBertModel(const DistilBertConfig& c);
  bool uses_token_type_ids() const override { return false; }
  std::shared_ptr<DistilBertEmbeddings> embeddings() const { return embeddings_; }

 private:
  DistilBertAttentionInputs attention_inputs(const ModelBatch& b) const;
  torch::Tensor encode_padded(const ModelBatch& b, const ForwardOptions& o,
                              std::vector<torch::Tensor>& hidden_states) override;
  torch::Tensor encode_unpadded(const ModelBatch& b, const PackedTokens& packed) override;
  bool can_keep_first_tokens_only() const override { return true; }

  std::shared_ptr<DistilBertEmbeddings> embeddings_;
  torch::nn::ModuleList layers_;
};

// Hugging Face's _init_weights of a DistilBERT model; with sinusoidal_pos_embds
// the position table is then the fixed sinusoid (after its normal_ draw, as in
// transformers).
void init_distilbert_weights(torch::nn::Module& model, DistilBertModel& encoder, const DistilBertConfig& c,
                             const std::vector<std::string>& only);

class DistilBertForSequenceClassification : public EncoderWithHead {
 public:
  // Init::HuggingFace draws as transformers' constructor does (the base
  // model's post_init before the head is built); Init::None keeps LibTorch's
  // constructor draws, for weights loaded next.
  explicit DistilBertForSequenceClassification(DistilBertConfig config, Init init = Init::None);

  nlohmann::json hf_config() const override { return distilbert_config_to_json(config_); }
  long long num_labels() const override { return config_.labels.num_labels; }
  std::string label_name(long long id) const override { return config_.labels.label_name(id); }
  void init_weights(const std::vector<std::string>& only = {}) override;

  const DistilBertConfig& config() const { return config_; }

 private:
  // `pooled` is the [CLS] hidden state; pre_classifier, ReLU, dropout, classifier.
  torch::Tensor head(const EncoderOutput& encoded, ModelOutput& out) override;
  std::string problem_type() const override { return config_.labels.problem_type; }

  DistilBertConfig config_;
  std::shared_ptr<DistilBertModel> distilbert_;
  torch::nn::Linear pre_classifier_{nullptr}, classifier_{nullptr};
};

}  // namespace runner
