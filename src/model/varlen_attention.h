// Padding-free attention on a GPU: LibTorch's variable-length kernels over the
// packed tokens, flash attention in fp16 and bf16, memory-efficient attention
// in fp32. Each sequence attends within itself through the cumulative offsets
// of PackedSequences, so no product, softmax or dropout touches a pad, as the
// CPU kernel of model/packed_attention.h does. CUDA builds only: elsewhere
// nothing applies and the padded product runs.
#pragma once

#include "model/packed_attention.h"

#include <torch/torch.h>

namespace runner {

// Whether the kernels take these projections: a CUDA tensor whose head size is
// a multiple of 8 up to 256; fp16 or bf16 on a GPU of compute capability 8.0
// or above (flash attention, local windows included), or fp32 with global
// attention (memory-efficient attention has no window here).
bool varlen_attention_applies(const torch::Tensor& qkv, const PackedAttentionSpec& spec);

// qkv [T, 3 * heads * d] -> context [T, heads * d] in qkv's dtype, scores
// scaled by 1/sqrt(d); differentiable through LibTorch's own backward. Dropout
// draws from the GPU's generator, as LibTorch's attention does.
torch::Tensor varlen_attention(const torch::Tensor& qkv, const PackedSequences& sequences,
                               const PackedAttentionSpec& spec);

}  // namespace runner
