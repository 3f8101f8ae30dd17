#include "model/head_gemm.h"

#include "util/kernel_isa.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace runner {
namespace {

// Rows of c per block: 6 x 2 vectors of sums, 2 of b and a broadcast fill 15
// of AVX2's 16 registers.
constexpr int kRows = 6;
// Past this many multiply-adds a BLAS's packing pays for itself.
constexpr int64_t kLargest = int64_t(1) << 24;

// a's element (i, p) is data[i * row + p * col]: a transposed a is read in place.
struct Lhs {
  const float* data;
  int64_t row, col;
};

// b as the blocks read it: k rows of `width` floats, n rounded up to whole
// vectors of 8.
struct Rhs {
  const float* data;
  int64_t ld;
  int width;
};

// The 8 x 8 floats at rows[i * ld], i < 8, transposed into out[q * ld_out], q < 8.
RUNNER_TARGET_AVX2 void transpose8(const float* rows, int64_t ld, float* out, int64_t ld_out) {
  __m256 r[8], t[8], u[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(rows + i * ld);
  for (int i = 0; i < 8; i += 2) {  // pairs of rows interleaved
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {  // then quadruples
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int q = 0; q < 4; ++q) {  // then the 128-bit halves
    _mm256_storeu_ps(out + q * ld_out, _mm256_permute2f128_ps(u[q], u[q + 4], 0x20));
    _mm256_storeu_ps(out + (q + 4) * ld_out, _mm256_permute2f128_ps(u[q], u[q + 4], 0x31));
  }
}

// out[p * ld_out + j] = b[j * ldb + p] for j < n, p < k: whole 8 x 8 tiles in
// registers, the edges one by one.
RUNNER_TARGET_AVX2 void transpose(const float* b, int64_t ldb, int n, int k, float* out, int64_t ld_out) {
  const int n8 = n / 8 * 8, k8 = k / 8 * 8;
  for (int64_t j = 0; j < n8; j += 8)
    for (int64_t p = 0; p < k8; p += 8) transpose8(b + j * ldb + p, ldb, out + p * ld_out + j, ld_out);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t p = j < n8 ? k8 : 0; p < k; ++p) out[p * ld_out + j] = b[j * ldb + p];
}

// b itself when it is untransposed and n fills whole vectors; else a copy in
// `panel`, transposed where asked, zeros past column n.
Rhs rhs_of(bool trans_b, int n, int k, const float* b, int ldb, std::vector<float>& panel) {
  const int width = (n + 7) / 8 * 8;
  if (!trans_b && width == n) return {b, ldb, width};
  panel.resize(size_t(k) * size_t(width));
  float* out = panel.data();
  for (int64_t p = 0; p < k; ++p) std::fill(out + p * width + n, out + (p + 1) * width, 0.0f);
  if (!trans_b) {
    for (int64_t p = 0; p < k; ++p) std::copy(b + p * ldb, b + p * ldb + n, out + p * width);
    return {out, width, width};
  }
  transpose(b, ldb, n, k, out, width);
  return {out, width, width};
}

// c's rows [0, R) and columns [0, cols) of one block, cols <= 8 V: the R x V
// vectors of sums stay in registers over all of k. They start from zero, or
// from c itself when `accumulate`.
template <int R, int V>
RUNNER_TARGET_AVX2 void block(int k, Lhs a, const float* b, int64_t ldb, float* c, int64_t ldc, int cols,
                              bool accumulate) {
  __m256 sum[R][V];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    alignas(32) float start[8 * V] = {};
    if (accumulate) std::copy(c + r * ldc, c + r * ldc + cols, start);
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) sum[r][v] = _mm256_load_ps(start + 8 * v);
  }
  for (int64_t p = 0; p < k; ++p) {
    __m256 row[V];
#pragma GCC unroll 2
    for (int v = 0; v < V; ++v) row[v] = _mm256_loadu_ps(b + p * ldb + 8 * v);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m256 x = _mm256_broadcast_ss(a.data + r * a.row + p * a.col);
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) sum[r][v] = _mm256_fmadd_ps(x, row[v], sum[r][v]);
    }
  }
  // Unrolled like the loops above, so that `sum` stays in registers.
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    float* out = c + r * ldc;
    if (cols == 8 * V) {
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) _mm256_storeu_ps(out + 8 * v, sum[r][v]);
    } else {
      alignas(32) float tail[8 * V];
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) _mm256_store_ps(tail + 8 * v, sum[r][v]);
      std::copy(tail, tail + cols, out);
    }
  }
}

using Block = void (*)(int, Lhs, const float*, int64_t, float*, int64_t, int, bool);

template <int V>
Block block_of(int rows) {
  switch (rows) {
    case 1: return block<1, V>;
    case 2: return block<2, V>;
    case 3: return block<3, V>;
    case 4: return block<4, V>;
    case 5: return block<5, V>;
    default: return block<6, V>;
  }
}

// Row blocks of kRows, each over column blocks of 16 and a last one of 8.
void multiply(int m, int n, int k, Lhs a, Rhs b, float* c, int64_t ldc, bool accumulate) {
  for (int i = 0; i < m; i += kRows) {
    const int rows = std::min(kRows, m - i);
    const Lhs rows_of_a{a.data + i * a.row, a.row, a.col};
    const Block wide = block_of<2>(rows), narrow = block_of<1>(rows);
    for (int j = 0; j < b.width; j += 16) {
      const bool two = b.width - j >= 16;
      (two ? wide : narrow)(k, rows_of_a, b.data + j, b.ld, c + i * ldc + j, ldc, std::min(two ? 16 : 8, n - j),
                             accumulate);
    }
  }
}

}  // namespace

void head_gemm(Sgemm blas, bool trans_a, bool trans_b, int m, int n, int k, const float* a, int lda,
               const float* b, int ldb, float* c, int ldc, float beta) {
  const bool small = int64_t(m) * n * k <= kLargest && (beta == 0.0f || beta == 1.0f);
  if (kernel_isa() == KernelIsa::Generic || !small) {
    gemm_row_major(blas, trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, beta);
    return;
  }
  thread_local std::vector<float> panel;
  const Lhs lhs = trans_a ? Lhs{a, 1, lda} : Lhs{a, lda, 1};
  multiply(m, n, k, lhs, rhs_of(trans_b, n, k, b, ldb, panel), c, ldc, beta == 1.0f);
}

}  // namespace runner
