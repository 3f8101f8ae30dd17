// Padding-free attention: each sequence's real tokens attend to each other
// on the packed [T, 3 * heads * d] projections, sequence by sequence and head
// by head, so no product, softmax or dropout of the encoder touches a pad. The
// numbers are the padded eager path's up to the order of sums, and dropout
// draws the same mask (model/packed_attention_kernel.h). CPU, float and bf16;
// on a GPU the same call runs LibTorch's variable-length kernels
// (model/varlen_attention.h).
#pragma once

#include "model/packed_attention_kernel.h"

#include <torch/torch.h>

#include <memory>

namespace runner {

// The batch's sequences within the packed tokens, read on the host once per
// forward and shared by every layer.
struct PackedSequences {
  torch::Tensor starts;       // [B + 1] int64 offsets into the T tokens, on the host
  torch::Tensor columns;      // [T] int64 each token's column in its padded row, on the host
  int64_t padded_length = 0;  // L
  int64_t longest = 0;        // the most tokens in one sequence
  torch::Tensor device_starts;  // starts as int32 on the tokens' GPU (the variable-length kernels')
};

// From the flat positions of the real tokens in B * L (ascending).
std::shared_ptr<const PackedSequences> packed_sequences(const torch::Tensor& token_index, int64_t batch,
                                                        int64_t length);

struct PackedAttentionSpec {
  int64_t heads = 0;
  ScoreScaling scaling = ScoreScaling::AfterProduct;
  double dropout_p = 0.0;
  bool training = false;
  int64_t window = -1;  // local attention's reach in columns; negative: global
};

// Whether packed attention reproduces the family's padded path for projections
// `qkv`: on the CPU with a BLAS in the process, in float; in bf16 only where
// the probabilities stay float until the context product (not DistilBERT's,
// whose softmax runs in bf16 under autocast, nor ModernBERT's with attention
// dropout, which drops the bf16 probabilities). On a GPU: where
// varlen_attention_applies.
bool packed_attention_applies(const torch::Tensor& qkv, const PackedAttentionSpec& spec);

// qkv [T, 3 * heads * d] (q, k, v side by side, each head's d columns
// together) -> context [T, heads * d] in qkv's dtype; differentiable.
torch::Tensor packed_attention(const torch::Tensor& qkv, const PackedSequences& sequences,
                               const PackedAttentionSpec& spec);

}  // namespace runner
