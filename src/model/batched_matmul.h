// Attention's batched products (scores = q k^T, context = p v) with the batch
// entries spread over LibTorch's intra-op threads, each one a single-threaded
// GEMM. LibTorch 1.13's bmm on CPU without MKL calls BLAS once per entry with
// all threads, and on BERT-Mini's [B x heads] small matrices the threads'
// start-up and join cost more than the arithmetic: attention's bmm took more
// time than every Linear together (bench/step --profile). Same GEMM per entry,
// so the same numbers. A LibTorch built with MKL (the pip wheels) runs bmm as
// one MKL batched GEMM spread over the batch already, so there this is
// torch::matmul itself.
#pragma once

#include <torch/torch.h>

namespace runner {

// a [..., M, K] times b [..., K, N] with equal leading dimensions, like
// torch::matmul; differentiable. Under autocast both run in its dtype, as bmm does.
torch::Tensor batched_matmul(const torch::Tensor& a, const torch::Tensor& b);

}  // namespace runner
