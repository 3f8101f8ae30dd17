// Padding-free disentangled attention (DeBERTa-v2/v3) on the CPU in fp32: each
// sequence's real tokens attend to each other with the content-to-position and
// position-to-content terms, sequence by sequence and head by head
// (model/relative_attention_kernel.h). The numbers are the padded path's
// (model/deberta_v2.cpp) up to the order of sums, and dropout draws the same
// mask; the projected tables' gradients are summed over the sequences in
// batch order, so the split over threads changes no value.
#pragma once

#include "model/packed_attention.h"

#include <torch/torch.h>

namespace runner {

// Row indices into the projected relative table, [L, L] int32 on the host by
// (query column, key column): clamp(relative_pos + span) - first row for
// c2p, clamp(-relative_pos + span) - first row for p2c (read transposed, as
// transformers transposes its gather). Undefined for a term the model lacks.
struct RelativeIndexTables {
  torch::Tensor c2p, p2c;
};

// From the [L, L] relative positions, the span and the first row of the
// table that the projections hold (rows first .. first + R - 1).
RelativeIndexTables relative_index_tables(const torch::Tensor& relative_pos, int64_t span, int64_t first,
                                          bool c2p, bool p2c);

struct PackedRelativeSpec {
  int64_t heads = 0;
  double scale = 1.0;  // sqrt(d * (1 + terms)) in float32, as transformers' scaled_size_sqrt
  double dropout_p = 0.0;
  bool training = false;
};

// Whether the packed kernel runs for projections `qkv`: on the CPU, in float,
// with a BLAS in the process. Elsewhere (bf16 autocast, a GPU) the padded
// path runs.
bool packed_relative_attention_applies(const torch::Tensor& qkv);

// qkv [T, 3 * heads * d] (q, k, v side by side), pos_key and pos_query
// [R, heads * d] (the table's rows projected by the key and query projections;
// undefined for an absent term) -> context [T, heads * d]; differentiable in
// qkv, pos_key and pos_query.
torch::Tensor packed_relative_attention(const torch::Tensor& qkv, const torch::Tensor& pos_key,
                                        const torch::Tensor& pos_query, const PackedSequences& sequences,
                                        const RelativeIndexTables& tables, const PackedRelativeSpec& spec);

}  // namespace runner
