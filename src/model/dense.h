// The Linear layers' product, y = x W^T + b, as aten::linear computes it. On
// the CPU in fp32 outside autocast, where the process has oneDNN's sgemm
// (Debian's LibTorch loads libdnnl), the forward product and the input's
// gradient run there and the weight's gradient on LibTorch's mm: oneDNN
// writes the product straight into its output, where OpenBLAS first zeroes it
// in a pass of its own, and on the encoders' shapes (thousands of tokens by a
// few hundred features) it runs 1.2-1.35x faster (bench/gemm_bench.cpp). The weight's
// gradient sums over the tokens, a shape where OpenBLAS is as fast or faster.
// Elsewhere (bf16 autocast, a GPU, no oneDNN) it is torch::linear itself.
#pragma once

#include <torch/torch.h>

namespace runner {

// x [..., in], weight [out, in], bias [out] or undefined -> [..., out]; differentiable.
torch::Tensor dense(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias);

// Whether dense runs on oneDNN's sgemm for these operands.
bool dense_on_onednn(const torch::Tensor& x, const torch::Tensor& weight);

}  // namespace runner
