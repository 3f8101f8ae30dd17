// Unpadded DistilBERT, as bert_unpadded.cpp does it for BERT: every op runs on
// the packed real tokens [T, dim], attention sequence by sequence; in bf16 on
// the CPU (whose softmax DistilBERT runs in bf16) and where no packed kernel
// applies the attention product is padded to [B, heads, L, d].
#include "model/distilbert.h"

#include "model/encoder_ops.h"
#include "model/lora.h"

namespace runner {

torch::Tensor DistilBertSelfAttention::forward_unpadded(const torch::Tensor& x, const DistilBertAttentionInputs& a,
                                                        const torch::Tensor& rows) {
  auto qkv = fused_qkv(x, q_lin, k_lin, v_lin);  // [T, 3 dim]
  torch::Tensor context;
  const PackedAttentionSpec spec{heads, ScoreScaling::QueryFirst, dropout_p, is_training()};
  if (a.sequences && packed_attention_applies(qkv, spec)) {
    context = packed_attention(qkv, *a.sequences, spec);
  } else {
    auto padded = padded_qkv(qkv, a.token_index, a.batch, a.length, heads);
    context = packed_context(attend(padded[0], padded[1], padded[2], a.padding), a.token_index);
  }
  return linear_forward(out_lin, kept_rows_of(context, rows));
}

torch::Tensor DistilBertModel::encode_unpadded(const ModelBatch& b, const PackedTokens& packed) {
  DistilBertAttentionInputs a = attention_inputs(b);
  a.token_index = packed.token_index;
  a.sequences = packed_sequences(a.token_index, a.batch, a.length);
  auto ids = b.input_ids.reshape({-1}).index_select(0, a.token_index);
  auto h = embeddings_->forward(ids, a.token_index.remainder(a.length));  // [T, dim]
  return run_packed_layers<DistilBertBlock>(
      layers_, packed, h,
      [a](DistilBertBlock* l, const torch::Tensor& x, const torch::Tensor& rows) { return l->forward(x, a, rows); });
}

}  // namespace runner
