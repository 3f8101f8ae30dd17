#include "model/softmax_kernel.h"

#include "util/kernel_isa.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

namespace runner {
namespace {

void softmax_row_generic(float* row, int64_t n) {
  const float top = *std::max_element(row, row + n);
  float sum = 0.0f;
  for (int64_t j = 0; j < n; ++j) sum += (row[j] = std::exp(row[j] - top));
  const float inverse = 1.0f / sum;
  for (int64_t j = 0; j < n; ++j) row[j] *= inverse;
}

// e^x of eight x <= 0: x = k ln 2 + r with |r| <= ln 2 / 2, e^r by Cephes'
// minimax polynomial for expf, times 2^k built in the exponent bits. Below
// -87.3 the result would be under float's smallest normal: it is 0, as e^-inf
// is. A NaN stays NaN.
RUNNER_TARGET_AVX2 inline __m256 exp_nonpositive(__m256 x) {
  const __m256 lowest = _mm256_set1_ps(-87.3f);
  const __m256 bounded = _mm256_max_ps(lowest, x);  // NaN: the second operand, x
  const __m256 k = _mm256_round_ps(_mm256_mul_ps(bounded, _mm256_set1_ps(1.44269504088896341f)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  // ln 2 in two parts: k times the first is exact for |k| < 2^9.
  __m256 r = _mm256_fnmadd_ps(k, _mm256_set1_ps(0.693359375f), bounded);
  r = _mm256_fnmadd_ps(k, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  const __m256 e_r = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  const __m256i biased = _mm256_add_epi32(_mm256_cvtps_epi32(k), _mm256_set1_epi32(127));
  const __m256 two_k = _mm256_castsi256_ps(_mm256_slli_epi32(biased, 23));
  const __m256 y = _mm256_mul_ps(e_r, two_k);
  return _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(x, lowest, _CMP_LT_OQ));
}

RUNNER_TARGET_AVX2 float lanes_sum(__m256 v) {
  const __m128 half = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 quarter = _mm_add_ps(half, _mm_movehl_ps(half, half));
  return _mm_cvtss_f32(_mm_add_ss(quarter, _mm_movehdup_ps(quarter)));
}

RUNNER_TARGET_AVX2 void softmax_row_avx2(float* row, int64_t n) {
  const float top = *std::max_element(row, row + n);
  const int64_t whole = n / 8 * 8;
  const __m256 shift = _mm256_set1_ps(top);
  __m256 lanes = _mm256_setzero_ps();
  for (int64_t j = 0; j < whole; j += 8) {
    const __m256 e = exp_nonpositive(_mm256_sub_ps(_mm256_loadu_ps(row + j), shift));
    _mm256_storeu_ps(row + j, e);
    lanes = _mm256_add_ps(lanes, e);
  }
  float sum = lanes_sum(lanes);
  for (int64_t j = whole; j < n; ++j) sum += (row[j] = std::exp(row[j] - top));
  const __m256 inverse = _mm256_set1_ps(1.0f / sum);
  for (int64_t j = 0; j < whole; j += 8) _mm256_storeu_ps(row + j, _mm256_mul_ps(_mm256_loadu_ps(row + j), inverse));
  for (int64_t j = whole; j < n; ++j) row[j] *= 1.0f / sum;
}

}  // namespace

void softmax_rows(float* x, int64_t n) {
  const auto row_softmax = kernel_isa() == KernelIsa::Generic ? softmax_row_generic : softmax_row_avx2;
  for (int64_t i = 0; i < n; ++i) row_softmax(x + i * n, n);
}

}  // namespace runner
