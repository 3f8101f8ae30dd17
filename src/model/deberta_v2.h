// DebertaV2ForSequenceClassification in LibTorch, as transformers builds it
// (DeBERTa-v3 checkpoints are this architecture). Its feed-forward half and
// residual outputs are BERT's (bert.h); its attention adds to the content
// scores a content-to-position and a position-to-content term read from a
// table of relative distances (log-bucketed past position_buckets / 2).
// Unpadded (the default) its projections, norms and feed-forward take only the
// real tokens, and on the CPU in fp32 so does the attention
// (model/packed_relative_attention.h); elsewhere the attention runs on the
// padded [B, heads, L, L] scores, which the relative terms index by column.
#pragma once

#include "model/bert.h"
#include "model/deberta_v2_config.h"
#include "model/encoder_with_head.h"
#include "model/packed_relative_attention.h"

#include <algorithm>
#include <memory>

namespace runner {

// Transformers' build_relative_position: [L, L] with query i, key j -> i - j,
// log-bucketed (make_log_bucket_position) when buckets > 0, in float32 as there.
torch::Tensor deberta_relative_positions(int64_t length, long long buckets, long long max_position,
                                         const torch::Device& device);

// What every layer's attention reads: the query-and-key padding mask [B, 1, L, L]
// (bool), the relative positions [L, L] and the relative table [2 * span, H].
struct RelativeAttentionInputs {
  torch::Tensor mask, relative_pos, rel_embeddings;
  // The largest |relative_pos|: the scores read only the table's rows
  // span - reach .. span + reach, so only those are projected and multiplied.
  int64_t reach = 0;
  int64_t first_row(int64_t span) const { return std::max<int64_t>(0, span - reach); }
  int64_t end_row(int64_t span) const { return std::min<int64_t>(2 * span, span + reach + 1); }
  // Unpadded only: [T] flat positions of the real tokens in B * L; hidden is [T, H].
  torch::Tensor token_index;
  int64_t batch = 0, length = 0;
  // Unpadded on the CPU: the sequences and the row indices that the packed
  // kernel reads (model/packed_relative_attention.h).
  std::shared_ptr<const PackedSequences> sequences;
  RelativeIndexTables index_tables;
};

class DisentangledSelfAttention : public torch::nn::Module {
 public:
  explicit DisentangledSelfAttention(const DebertaV2Config& c);
  torch::Tensor forward(const torch::Tensor& hidden, const RelativeAttentionInputs& in);
  torch::nn::Linear query_proj{nullptr}, key_proj{nullptr}, value_proj{nullptr};
  torch::nn::Linear pos_key_proj{nullptr}, pos_query_proj{nullptr};  // without share_att_key

 private:
  torch::Tensor heads(const torch::Tensor& x) const;  // [B, L, H] -> [B, heads, L, d]
  double score_scale() const;
  torch::Tensor relative_rows(const RelativeAttentionInputs& in);
  torch::Tensor packed_forward(const torch::Tensor& qkv, const RelativeAttentionInputs& in);
  torch::Tensor relative_scores(const torch::Tensor& q, const torch::Tensor& k, const RelativeAttentionInputs& in,
                                double scale);
  DebertaV2Config config_;
  int64_t heads_, head_dim_;
};

class DebertaV2Layer : public torch::nn::Module {
 public:
  explicit DebertaV2Layer(const DebertaV2Config& c);
  // With `rows` (packed only): the output of just those rows, whose attention
  // still reads every token; the feed-forward then runs on those rows only.
  torch::Tensor forward(const torch::Tensor& hidden, const RelativeAttentionInputs& in,
                        const torch::Tensor& rows = {});

 private:
  std::shared_ptr<DisentangledSelfAttention> self_;
  std::shared_ptr<BertResidualOutput> attention_output_, output_;
  std::shared_ptr<BertIntermediate> intermediate_;
};

// DebertaV2Model: embeddings, the layers and the relative table they share.
class DebertaV2Model : public Encoder {
 public:
  explicit DebertaV2Model(const DebertaV2Config& c);

 private:
  torch::Tensor embed(const ModelBatch& b);
  torch::Tensor embed_unpadded(const ModelBatch& b, const torch::Tensor& token_index);
  RelativeAttentionInputs attention_inputs(const ModelBatch& b);
  void packed_inputs(RelativeAttentionInputs& in) const;
  torch::Tensor encode_padded(const ModelBatch& b, const ForwardOptions& o,
                              std::vector<torch::Tensor>& hidden_states) override;
  torch::Tensor encode_unpadded(const ModelBatch& b, const PackedTokens& packed) override;
  bool can_keep_first_tokens_only() const override { return true; }
  // The layers over h ([B, L, H], or [T, H] of `packed`); each one's output appended when asked.
  torch::Tensor encode(torch::Tensor h, const RelativeAttentionInputs& in, const PackedTokens* packed,
                       std::vector<torch::Tensor>* hidden_states);

  DebertaV2Config config_;
  torch::nn::Embedding word_embeddings_{nullptr}, position_embeddings_{nullptr}, token_type_embeddings_{nullptr};
  torch::nn::LayerNorm embeddings_norm_{nullptr}, rel_norm_{nullptr};
  torch::nn::Embedding rel_embeddings_{nullptr};
  torch::nn::ModuleList layers_;
};

class DebertaV2ForSequenceClassification : public EncoderWithHead {
 public:
  // Init::HuggingFace draws as transformers' _init_weights does; Init::None keeps
  // LibTorch's constructor draws, for weights loaded next.
  explicit DebertaV2ForSequenceClassification(DebertaV2Config config, Init init = Init::None);

  nlohmann::json hf_config() const override { return deberta_v2_config_to_json(config_); }
  long long num_labels() const override { return config_.encoder.num_labels; }
  std::string label_name(long long id) const override { return config_.encoder.label_name(id); }
  void init_weights(const std::vector<std::string>& only = {}) override;

 private:
  // ContextPooler (dropout, dense, activation) on the first token, dropout, classifier.
  torch::Tensor head(const EncoderOutput& encoded, ModelOutput& out) override;
  std::string problem_type() const override { return config_.encoder.problem_type; }

  DebertaV2Config config_;
  torch::nn::Linear pooler_{nullptr}, classifier_{nullptr};
};

}  // namespace runner
