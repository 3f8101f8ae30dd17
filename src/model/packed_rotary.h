// ModernBERT's rotary embedding on the packed [T, 3 * hidden] projection in one
// pass: q and k rotated, v copied, ready for packed_attention. The op sequence
// it replaces (select, cast, rotate_half's slices, neg and cat, two products
// and a sum, then the cat of q, k and v) costs a dozen kernels and zero-filled
// gradients per layer; this one reads and writes each element once.
//
// Values are those of transformers' apply_rotary_pos_emb in float32 (each
// product rounded, then their sum), rounded to the input's type; the gradient
// is the one autograd gives that sequence, bit for bit: each input element's
// two contributions summed once, in float32, then rounded.
#pragma once

#include <torch/torch.h>

namespace runner {

// qkv [T, 3 * heads * d] (float or bfloat16); cos and sin [T, d] float32,
// each token's row of the rotary tables. Returns [T, 3 * heads * d]. Off the
// CPU (a GPU's packed tokens) the op sequence itself runs.
torch::Tensor packed_rotary(const torch::Tensor& qkv, const torch::Tensor& cos, const torch::Tensor& sin,
                            int64_t heads);

}  // namespace runner
