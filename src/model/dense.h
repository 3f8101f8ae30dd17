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

// y[:, column : column + out] += alpha x W^T, in place, with y [rows, width]
// the output of dense (x [rows, in], weight [out, in]); differentiable in y,
// x and weight. A LoRA adapter's up-projection lands in its layer's output
// with no pass of its own, and into its third of a fused q, k, v product.
// Only where dense_accumulate_applies.
torch::Tensor dense_accumulate(torch::Tensor y, int64_t column, const torch::Tensor& x, const torch::Tensor& weight,
                               double alpha);
bool dense_accumulate_applies(const torch::Tensor& y, const torch::Tensor& x, const torch::Tensor& weight);

}  // namespace runner
