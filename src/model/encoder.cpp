#include "model/encoder.h"

#include "model/encoder_ops.h"
#include "model/layer_recompute.h"

namespace runner {

torch::Tensor EncoderOutput::first_tokens() const {
  if (first_tokens_only) return hidden;
  return packed ? hidden.index_select(0, packed->first_token) : hidden.select(1, 0);
}

torch::Tensor EncoderOutput::mean_of_tokens() const {
  TORCH_INTERNAL_ASSERT(!first_tokens_only, "mean_of_tokens needs every token's row");
  const auto counts = attention_mask.sum(1, true).to(hidden.scalar_type());
  if (!packed) return (hidden * attention_mask.unsqueeze(-1).to(hidden.scalar_type())).sum(1) / counts;
  auto rows = packed->token_index.div(length, "floor");
  return torch::zeros({batch, hidden.size(1)}, hidden.options()).index_add_(0, rows, hidden) / counts;
}

torch::Tensor scatter_to_positions(const torch::Tensor& rows, const PackedTokens& packed, int64_t batch,
                                   int64_t length) {
  auto padded = torch::zeros({batch * length, rows.size(1)}, rows.options());
  return padded.index_copy(0, packed.token_index, rows).view({batch, length, rows.size(1)});
}

EncoderOutput Encoder::forward(const ModelBatch& b, const ForwardOptions& o) {
  EncoderOutput out;
  out.batch = b.input_ids.size(0);
  out.length = b.input_ids.size(1);
  out.attention_mask = b.attention_mask;
  if (runs_packed(b, o)) {
    out.packed = packed_tokens(b);
    out.first_tokens_only = keeps_first_tokens_only();
    out.hidden = encode_unpadded(b, *out.packed);
  } else {
    out.hidden = encode_padded(b, o, out.hidden_states);
  }
  return out;
}

bool Encoder::runs_packed(const ModelBatch& b, const ForwardOptions& o) const {
  return runs_unpadded(execution_, b, o);
}

torch::Tensor Encoder::kept_rows(const PackedTokens& packed, size_t layer, size_t layers) const {
  const bool last = layer + 1 == layers;
  return last && keeps_first_tokens_only() ? packed.first_token : torch::Tensor();
}

torch::Tensor Encoder::run_layer(LayerCall layer, const torch::Tensor& hidden) {
  if (!gradient_checkpointing_ || !is_training() || !torch::GradMode::is_enabled()) return layer(hidden);
  return recomputed_in_backward(std::move(layer), hidden);
}

}  // namespace runner
