// Unpadded execution (as in the MLPerf BERT submissions): everything except the
// attention product itself runs on the packed real tokens [T, H], so no GEMM,
// LayerNorm or GELU is spent on padding. Attention scatters the projected
// tokens into a padded [B, heads, L, d] layout and gathers the context back.
#include "model/bert.h"
#include "model/encoder_ops.h"

namespace runner {

torch::Tensor BertSelfAttention::forward_unpadded(const torch::Tensor& hidden,
                                                  const AttentionInputs& a) {
  auto qkv = padded_qkv(hidden, query, key, value, a.token_index, a.batch, a.length, heads);
  return packed_context(attend(qkv[0], qkv[1], qkv[2], a.additive_mask), a.token_index);
}

torch::Tensor BertForSequenceClassification::encode_unpadded(const ModelBatch& b) {
  AttentionInputs a = attention_inputs(b);
  PackedTokens packed = packed_tokens(b);
  a.token_index = packed.token_index;
  auto ids = b.input_ids.reshape({-1}).index_select(0, a.token_index);
  auto types = b.token_type_ids.reshape({-1}).index_select(0, a.token_index);
  auto positions = a.token_index.remainder(a.length);
  auto h = embeddings_->forward(ids, types, positions);  // [T, H]
  for (const auto& layer : *layers_)
    h = run_layer([l = layer->as<BertLayer>(), a](const torch::Tensor& x) { return l->forward(x, a); }, h);
  return pool(h.index_select(0, packed.first_token));
}

}  // namespace runner
