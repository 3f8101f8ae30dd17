#include "model/blas_gemm.h"

#include <dlfcn.h>

namespace runner {

Sgemm process_sgemm() {
  static const Sgemm sgemm = reinterpret_cast<Sgemm>(dlsym(RTLD_DEFAULT, "sgemm_"));
  return sgemm;
}

void gemm_row_major(Sgemm sgemm, bool trans_a, bool trans_b, int m, int n, int k, const float* a,
                    int lda, const float* b, int ldb, float* c, int ldc, float beta) {
  // BLAS is column-major: a row-major matrix is its column-major transpose, so
  // row-major c = op(a) op(b) is column-major c^T = op(b)^T op(a)^T.
  const float one = 1.0f;
  const char op_a = trans_a ? 'T' : 'N', op_b = trans_b ? 'T' : 'N';
  sgemm(&op_b, &op_a, &n, &m, &k, &one, b, &ldb, a, &lda, &beta, c, &ldc);
}

}  // namespace runner
