// The products inside attention's per-head kernels: [n, d] by [d, n] and
// [n, n] by [n, d], n a sequence's tokens (tens to hundreds), d a head's width.
// A BLAS call at these sizes spends most of its time packing the operands and
// zeroing the output: on MiniLM's LoRA step OpenBLAS's copy and beta routines
// took as long as its multiply kernel (perf). This one keeps a block of the
// output in registers and reads the operands where they lie.
#pragma once

#include "model/blas_gemm.h"

namespace runner {

// As gemm_row_major, on the calling thread: c [m, n] = op(a) op(b) + beta c.
// Each element is one fma per term over k in order, from zero (beta 0) or from
// c (beta 1), so its error is within (k + 1) 2^-24 sum |a||b| as any fp32 dot
// product's. Runs the AVX2 kernel where util/kernel_isa.h allows it, for beta 0
// or 1, while the product is small enough that packing does not pay (m n k <=
// 2^24: 512 tokens at a head width of 64); otherwise calls `blas`.
void head_gemm(Sgemm blas, bool trans_a, bool trans_b, int m, int n, int k, const float* a, int lda,
               const float* b, int ldb, float* c, int ldc, float beta = 0.0f);

}  // namespace runner
