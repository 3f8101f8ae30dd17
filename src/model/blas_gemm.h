// The process's single-precision BLAS GEMM, called on row-major matrices.
// Debian's LibTorch loads OpenBLAS and a pip wheel's libtorch_cpu exports
// MKL's; both export the Fortran symbol sgemm_. Called inside
// at::parallel_for, the OpenMP build of OpenBLAS sees a parallel region and
// runs each product on one thread, which is what the attention loops want.
#pragma once

#include <cstdint>

namespace runner {

using Sgemm = void (*)(const char* trans_a, const char* trans_b, const int* m, const int* n,
                       const int* k, const float* alpha, const float* a, const int* lda,
                       const float* b, const int* ldb, const float* beta, float* c,
                       const int* ldc);

// Null when no library in the process exports sgemm_.
Sgemm process_sgemm();

// c [m, n] = op(a) op(b) + beta c on row-major matrices with leading
// dimensions lda, ldb, ldc, where op transposes when asked: a is [m, k] (or
// [k, m] with trans_a), b is [k, n] (or [n, k] with trans_b). beta 0 reads
// nothing of c; beta 1 adds the product to it.
void gemm_row_major(Sgemm sgemm, bool trans_a, bool trans_b, int m, int n, int k, const float* a,
                    int lda, const float* b, int ldb, float* c, int ldc, float beta = 0.0f);

}  // namespace runner
