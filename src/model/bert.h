// BertForSequenceClassification in LibTorch, module for module as Hugging Face
// transformers 4.40 builds it, so that named_parameters() yields Hugging Face's
// state-dict keys in Hugging Face's order and the padded forward performs the
// same op sequence (bit-identical results single-threaded on the same LibTorch).
#pragma once

#include "model/bert_config.h"
#include "model/encoder.h"
#include "model/encoder_with_head.h"
#include "model/model.h"
#include "model/packed_attention.h"

namespace runner {

// Per-batch tensors built once and shared by every layer.
struct AttentionInputs {
  torch::Tensor additive_mask;  // [B, 1, 1, L]: 0 for tokens, finfo(float).min for padding
  torch::Tensor token_index;    // unpadded only: [T] flat positions of the real tokens in B*L
  std::shared_ptr<const PackedSequences> sequences;  // unpadded only: the sequences in the T
  int64_t batch = 0, length = 0;
};

// Hugging Face's extended attention mask: (1 - mask) * finfo(float32).min as
// [B, 1, 1, L]. It stays float32 under autocast, so bf16 scores are promoted
// and the softmax runs in float32, as in Python.
torch::Tensor additive_attention_mask(const torch::Tensor& attention_mask);
// A padded batch's AttentionInputs: its sizes and additive mask (token_index unset).
AttentionInputs attention_inputs(const ModelBatch& b);
// An unpadded batch's: the padded ones plus where its real tokens are.
AttentionInputs unpadded_attention_inputs(const ModelBatch& b, const PackedTokens& packed);

class BertEmbeddings : public torch::nn::Module {
 public:
  explicit BertEmbeddings(const BertConfig& c);
  // ids, token types and position ids of the same shape; the result adds a
  // trailing hidden dimension.
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids,
                        const torch::Tensor& position_ids);
  torch::nn::Embedding word_embeddings{nullptr}, position_embeddings{nullptr},
      token_type_embeddings{nullptr};
  torch::nn::LayerNorm layer_norm{nullptr};
  double dropout_p;
};

class BertSelfAttention : public torch::nn::Module {
 public:
  explicit BertSelfAttention(const BertConfig& c);
  // hidden [B, L, H] (padded) or [T, H] (unpadded, then `a.token_index` is set).
  torch::Tensor forward(const torch::Tensor& hidden, const AttentionInputs& a);
  torch::nn::Linear query{nullptr}, key{nullptr}, value{nullptr};
  int64_t heads, head_dim;
  double dropout_p;

 private:
  torch::Tensor attend(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                       const torch::Tensor& additive_mask);
  torch::Tensor forward_unpadded(const torch::Tensor& hidden, const AttentionInputs& a);
};

// dense -> dropout -> LayerNorm(x + residual): BertSelfOutput and BertOutput.
class BertResidualOutput : public torch::nn::Module {
 public:
  BertResidualOutput(int64_t in, const BertConfig& c);
  // `rows`: x and residual are those rows of the layer's tokens; the dropout
  // draws their masks as on every row (train_dropout).
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& residual, const torch::Tensor& rows = {});
  torch::nn::Linear dense{nullptr};
  torch::nn::LayerNorm layer_norm{nullptr};
  double dropout_p;
};

class BertAttention : public torch::nn::Module {
 public:
  explicit BertAttention(const BertConfig& c);
  // With `rows` defined (packed only): the output of just those rows, whose
  // attention still reads every token.
  torch::Tensor forward(const torch::Tensor& hidden, const AttentionInputs& a, const torch::Tensor& rows = {});
  std::shared_ptr<BertSelfAttention> self;
  std::shared_ptr<BertResidualOutput> output;
};

class BertIntermediate : public torch::nn::Module {
 public:
  explicit BertIntermediate(const BertConfig& c);
  torch::Tensor forward(const torch::Tensor& x);
  torch::nn::Linear dense{nullptr};
  std::string act;
};

class BertLayer : public torch::nn::Module {
 public:
  explicit BertLayer(const BertConfig& c);
  // `rows`: as BertAttention's; the feed-forward then runs on those rows only.
  torch::Tensor forward(const torch::Tensor& hidden, const AttentionInputs& a, const torch::Tensor& rows = {});
  std::shared_ptr<BertAttention> attention;
  std::shared_ptr<BertIntermediate> intermediate;
  std::shared_ptr<BertResidualOutput> output;
};

// BertModel: embeddings, the layers and, when `with_pooler`, the tanh pooler
// on the [CLS] token (the sequence head's; the token head's BertModel has none).
class BertModel : public Encoder {
 public:
  BertModel(const BertConfig& c, bool with_pooler);
  // The pooler: tanh(dense(first_tokens)), BertForSequenceClassification's input.
  torch::Tensor pool(const torch::Tensor& first_tokens);

 private:
  torch::Tensor encode_padded(const ModelBatch& b, const ForwardOptions& o,
                              std::vector<torch::Tensor>& hidden_states) override;
  torch::Tensor encode_unpadded(const ModelBatch& b, const PackedTokens& packed) override;
  bool can_keep_first_tokens_only() const override { return true; }

  std::shared_ptr<BertEmbeddings> embeddings_;
  torch::nn::ModuleList layers_;
  torch::nn::Linear pooler_{nullptr};
};

// Hugging Face _init_weights of a BERT model, in named_parameters() order:
// Linear and Embedding weights N(0, initializer_range), biases 0, LayerNorm
// 1 / 0, the padding row of `word_embeddings` 0. With `only` non-empty, just
// those parameter names (the missing keys after loading a checkpoint).
void init_bert_weights(torch::nn::Module& model, const BertConfig& c, const std::string& word_embeddings,
                       const std::vector<std::string>& only);

class BertForSequenceClassification : public EncoderWithHead {
 public:
  // Builds the modules. Init::HuggingFace initialises them as Hugging Face's
  // constructor does (BertModel's post_init before the classifier is built, so
  // a seed gives the very weights Python gives); Init::None leaves whatever
  // LibTorch's constructors drew, to be loaded or initialised after.
  explicit BertForSequenceClassification(BertConfig config, Init init = Init::None);

  nlohmann::json hf_config() const override { return bert_config_to_json(config_); }
  long long num_labels() const override { return config_.num_labels; }
  std::string label_name(long long id) const override { return config_.label_name(id); }
  void init_weights(const std::vector<std::string>& only = {}) override;

  const BertConfig& config() const { return config_; }

 private:
  // dropout, then the classifier on the pooler's output
  torch::Tensor head(const EncoderOutput& encoded, ModelOutput& out) override;
  std::string problem_type() const override { return config_.problem_type; }

  BertConfig config_;
  std::shared_ptr<BertModel> bert_;
  torch::nn::Linear classifier_{nullptr};
};

}  // namespace runner
