// Unpadded execution: every op runs on the packed real tokens [T, H], so no
// GEMM, LayerNorm, GELU or attention product is spent on padding. Attention
// runs sequence by sequence (model/packed_attention.h); where no packed kernel
// applies (a GPU without them), it scatters the projected tokens into a padded
// [B, heads, L, d] layout and gathers the context back.
#include "model/bert.h"
#include "model/encoder_ops.h"
#include "model/packed_attention.h"

namespace runner {

torch::Tensor BertSelfAttention::forward_unpadded(const torch::Tensor& hidden,
                                                  const AttentionInputs& a) {
  auto qkv = fused_qkv(hidden, query, key, value);  // [T, 3H]
  const PackedAttentionSpec spec{heads, ScoreScaling::AfterProduct, dropout_p, is_training()};
  if (a.sequences && packed_attention_applies(qkv, spec)) return packed_attention(qkv, *a.sequences, spec);
  auto padded = padded_qkv(qkv, a.token_index, a.batch, a.length, heads);
  return packed_context(attend(padded[0], padded[1], padded[2], a.additive_mask), a.token_index);
}

torch::Tensor BertModel::encode_unpadded(const ModelBatch& b, const PackedTokens& packed) {
  AttentionInputs a = unpadded_attention_inputs(b, packed);
  auto ids = b.input_ids.reshape({-1}).index_select(0, a.token_index);
  auto types = b.token_type_ids.reshape({-1}).index_select(0, a.token_index);
  auto positions = a.token_index.remainder(a.length);
  auto h = embeddings_->forward(ids, types, positions);  // [T, H]
  return run_packed_layers<BertLayer>(
      layers_, packed, h,
      [a](BertLayer* l, const torch::Tensor& x, const torch::Tensor& rows) { return l->forward(x, a, rows); });
}

}  // namespace runner
