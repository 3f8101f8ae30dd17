#include "model/deberta_v2.h"

#include "model/encoder_ops.h"
#include "model/lora.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace runner {
namespace {

torch::Tensor deberta_linear(const torch::nn::Linear& l, const torch::Tensor& x) { return linear_forward(l, x); }

}  // namespace

torch::Tensor deberta_relative_positions(int64_t length, long long buckets, long long max_position,
                                         const torch::Device& device) {
  auto ids = torch::arange(length, torch::TensorOptions().dtype(torch::kInt64).device(device));
  auto rel = ids.unsqueeze(1) - ids.unsqueeze(0);
  if (buckets <= 0 || max_position <= 0) return rel;
  // make_log_bucket_position, op for op in float32: distances inside +-mid stay,
  // farther ones share buckets on a log scale up to max_position.
  const int64_t mid = buckets / 2;
  auto sign = torch::sign(rel);
  auto abs_pos = torch::where((rel < mid) & (rel > -mid), torch::full_like(rel, mid - 1), rel.abs());
  auto denominator = torch::log(torch::tensor(static_cast<float>(double(max_position - 1) / double(mid)),
                                              torch::TensorOptions().device(device)));
  auto log_pos = torch::ceil(torch::log(abs_pos.to(torch::kFloat32) / static_cast<double>(mid)) / denominator *
                             static_cast<double>(mid - 1)) + static_cast<double>(mid);
  return torch::where(abs_pos <= mid, rel.to(torch::kFloat32), log_pos * sign).to(torch::kInt64);
}

DisentangledSelfAttention::DisentangledSelfAttention(const DebertaV2Config& c)
    : config_(c), heads_(c.encoder.num_attention_heads), head_dim_(c.encoder.head_dim()) {
  const int64_t h = c.encoder.hidden_size;
  query_proj = register_module("query_proj", torch::nn::Linear(h, h));
  key_proj = register_module("key_proj", torch::nn::Linear(h, h));
  value_proj = register_module("value_proj", torch::nn::Linear(h, h));
  if (c.relative_attention && !c.share_att_key) {
    if (c.c2p) pos_key_proj = register_module("pos_key_proj", torch::nn::Linear(h, h));
    if (c.p2c) pos_query_proj = register_module("pos_query_proj", torch::nn::Linear(h, h));
  }
}

torch::Tensor DisentangledSelfAttention::heads(const torch::Tensor& x) const {
  return x.view({x.size(0), x.size(1), heads_, head_dim_}).permute({0, 2, 1, 3});
}

// sqrt(d * factor) in float32, as transformers' scaled_size_sqrt, where the
// factor counts the content term and each relative one.
double DisentangledSelfAttention::score_scale() const {
  const int factor = 1 + (config_.relative_attention && config_.c2p) + (config_.relative_attention && config_.p2c);
  return static_cast<double>(std::sqrt(static_cast<float>(head_dim_ * factor)));
}

// The relative table's rows that the scores read, after dropout: dropout over
// the whole table, as Transformers draws it, then only the rows a score reads
// (clamp(+-rel + span) lies in [first_row, end_row)): the products and the
// gathers shrink from 2 * span columns to 2 * reach + 1, the values unchanged.
torch::Tensor DisentangledSelfAttention::relative_rows(const RelativeAttentionInputs& in) {
  const int64_t span = config_.relative_span();
  return train_dropout(in.rel_embeddings.slice(0, 0, 2 * span), config_.encoder.hidden_dropout_prob, is_training())
      .slice(0, in.first_row(span), in.end_row(span));
}

// Transformers' disentangled_attention_bias: content-to-position scores read
// at clamp(i - j + span), position-to-content ones at clamp(j - i + span).
torch::Tensor DisentangledSelfAttention::relative_scores(const torch::Tensor& q, const torch::Tensor& k,
                                                         const RelativeAttentionInputs& in, double scale) {
  const int64_t span = config_.relative_span(), length = q.size(2), lo = in.first_row(span);
  auto rel = relative_rows(in).unsqueeze(0);
  const std::vector<int64_t> shape = {q.size(0), heads_, length, length};
  torch::Tensor score;
  if (config_.c2p) {
    auto pos_key = heads(deberta_linear(config_.share_att_key ? key_proj : pos_key_proj, rel));  // [1, heads, R, d]
    auto c2p = torch::matmul(q, pos_key.transpose(-1, -2));
    auto index = (torch::clamp(in.relative_pos + span, 0, 2 * span - 1) - lo).expand(shape);
    score = torch::gather(c2p, -1, index) / scale;
  }
  if (config_.p2c) {
    auto pos_query = heads(deberta_linear(config_.share_att_key ? query_proj : pos_query_proj, rel));
    auto p2c = torch::matmul(k, pos_query.transpose(-1, -2));
    auto index = (torch::clamp(-in.relative_pos + span, 0, 2 * span - 1) - lo).expand(shape);
    auto term = torch::gather(p2c, -1, index).transpose(-1, -2) / scale;
    score = score.defined() ? score + term : term;
  }
  return score;
}

// The real tokens' attention without pads: the projected table rows [R, H]
// and the fused projections into the packed kernel, the table's dropout drawn
// before the probabilities' as on the padded path.
torch::Tensor DisentangledSelfAttention::packed_forward(const torch::Tensor& qkv, const RelativeAttentionInputs& in) {
  torch::Tensor pos_key, pos_query;
  if (config_.relative_attention) {
    auto rel = relative_rows(in);
    if (config_.c2p) pos_key = deberta_linear(config_.share_att_key ? key_proj : pos_key_proj, rel);
    if (config_.p2c) pos_query = deberta_linear(config_.share_att_key ? query_proj : pos_query_proj, rel);
  }
  const PackedRelativeSpec spec{heads_, score_scale(), config_.encoder.attention_probs_dropout_prob, is_training()};
  return packed_relative_attention(qkv, pos_key, pos_query, *in.sequences, in.index_tables, spec);
}

torch::Tensor DisentangledSelfAttention::forward(const torch::Tensor& hidden, const RelativeAttentionInputs& in) {
  torch::Tensor q, k, v;
  if (in.token_index.defined()) {  // the real tokens projected at once
    auto fused = fused_qkv(hidden, query_proj, key_proj, value_proj);
    if (in.sequences && packed_relative_attention_applies(fused)) return packed_forward(fused, in);
    auto qkv = padded_qkv(fused, in.token_index, in.batch, in.length, heads_);  // then placed in their rows
    q = qkv[0], k = qkv[1], v = qkv[2];
  } else {
    q = heads(deberta_linear(query_proj, hidden)), k = heads(deberta_linear(key_proj, hidden)),
    v = heads(deberta_linear(value_proj, hidden));
  }
  // The keys are divided before the product, as there.
  const double scale = score_scale();
  auto scores = torch::matmul(q, k.transpose(-1, -2) / scale);
  if (config_.relative_attention) {
    auto rel = relative_scores(q, k, in, scale);
    if (rel.defined()) scores = scores + rel;
  }
  scores = scores.masked_fill(in.mask.logical_not(), lowest_value(scores.scalar_type()));
  auto probs = train_dropout(torch::softmax(scores, -1), config_.encoder.attention_probs_dropout_prob, is_training());
  auto context = torch::matmul(probs, v);
  if (in.token_index.defined()) return packed_context(context, in.token_index);
  context = context.permute({0, 2, 1, 3}).contiguous();
  return context.view({context.size(0), context.size(1), -1});
}

DebertaV2Layer::DebertaV2Layer(const DebertaV2Config& c) {
  auto attention = register_module("attention", std::make_shared<torch::nn::Module>("DebertaV2Attention"));
  self_ = attention->register_module("self", std::make_shared<DisentangledSelfAttention>(c));
  attention_output_ = attention->register_module("output", std::make_shared<BertResidualOutput>(c.encoder.hidden_size, c.encoder));
  intermediate_ = register_module("intermediate", std::make_shared<BertIntermediate>(c.encoder));
  output_ = register_module("output", std::make_shared<BertResidualOutput>(c.encoder.intermediate_size, c.encoder));
}

torch::Tensor DebertaV2Layer::forward(const torch::Tensor& hidden, const RelativeAttentionInputs& in,
                                      const torch::Tensor& rows) {
  auto context = kept_rows_of(self_->forward(hidden, in), rows);
  auto attended = attention_output_->forward(context, kept_rows_of(hidden, rows), rows);
  return output_->forward(intermediate_->forward(attended), attended, rows);
}

}  // namespace runner
