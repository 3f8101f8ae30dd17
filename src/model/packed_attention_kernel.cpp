#include "model/packed_attention_kernel.h"

#include <algorithm>
#include <cmath>

namespace runner {
namespace {

// A value as the element type holds it: bf16 rounds to nearest even, as each
// bf16 op's result is rounded; float is left as it is.
template <typename T>
inline float held(float x) {
  return static_cast<float>(T(x));
}
template <>
inline float held<float>(float x) {
  return x;
}

template <typename T>
void widen(const T* in, int64_t ld, int64_t n, int64_t d, float* out) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < d; ++c) out[i * d + c] = static_cast<float>(in[i * ld + c]);
}

template <typename T>
void store(const float* in, int64_t n, int64_t d, T* out, int64_t ld) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < d; ++c) out[i * ld + c] = T(in[i * d + c]);
}

float root_head_dim(const HeadAttentionSpec& s) {
  return static_cast<float>(std::sqrt(static_cast<double>(s.head_dim)));
}

// What the scores are divided or multiplied by.
float score_factor(const HeadAttentionSpec& s) {
  if (s.scaling == ScoreScaling::TimesInverseRoot)
    return static_cast<float>(std::pow(static_cast<double>(s.head_dim), -0.5));
  return root_head_dim(s);
}

// A score as the family's op sequence leaves it: the product's output (rounded
// to T), then its scaling by `factor` (rounded again). The gradient flows back
// through the same scaling, rounded as each op's backward rounds it.
template <typename T>
float scaled(ScoreScaling scaling, float factor, float x) {
  switch (scaling) {
    case ScoreScaling::AfterProduct: return held<T>(held<T>(x) / factor);
    case ScoreScaling::TimesInverseRoot: return held<T>(held<T>(x) * factor);
    case ScoreScaling::QueryFirst: break;
  }
  return held<T>(x);
}

// Whether query i may see key j (the padded path's mask: -inf, exp gives 0).
inline bool visible(const HeadAttentionSpec& s, const HeadTask& t, int64_t i, int64_t j) {
  return s.window < 0 || std::abs(t.columns[i] - t.columns[j]) <= s.window;
}

// The head's q (scaled first where the family scales it), k and v as floats.
template <typename T>
void load_head(const HeadAttentionSpec& s, const HeadTask& t, const HeadBuffers<T>& b, float* q, float* k,
               float* v) {
  const int64_t n = t.n, d = s.head_dim;
  widen(b.q, b.ld, n, d, q);
  widen(b.k, b.ld, n, d, k);
  widen(b.v, b.ld, n, d, v);
  if (s.scaling != ScoreScaling::QueryFirst) return;
  const float root = root_head_dim(s);
  for (int64_t i = 0; i < n * d; ++i) q[i] = held<T>(q[i] / root);
}

// Dropout's factor for probability (i, j): the padded path's element of the
// same token pair.
inline float keep_factor(const HeadAttentionSpec& s, const HeadTask& t, int64_t i, int64_t j) {
  const uint64_t index = t.mask_base + uint64_t(t.columns[i]) * uint64_t(t.padded_length) + uint64_t(t.columns[j]);
  return dropout_keeps(s.mask, index) ? s.dropout_scale : 0.0f;
}

// The probabilities after dropout, as the second product reads them.
template <typename T>
void dropped_probs(const HeadAttentionSpec& s, const HeadTask& t, const float* probs, float* out) {
  const int64_t n = t.n;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float p = probs[i * n + j];
      out[i * n + j] = held<T>(s.dropout ? p * keep_factor(s, t, i, j) : p);
    }
}

// Softmax of each row in place, as ATen's last-dimension kernel: exp(x - max)
// summed, then multiplied by the sum's reciprocal.
void softmax_rows(float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float* row = x + i * n;
    const float top = *std::max_element(row, row + n);
    float sum = 0.0f;
    for (int64_t j = 0; j < n; ++j) sum += (row[j] = std::exp(row[j] - top));
    const float inverse = 1.0f / sum;
    for (int64_t j = 0; j < n; ++j) row[j] *= inverse;
  }
}

}  // namespace

int64_t head_scratch_floats(int64_t n, int64_t head_dim) { return 8 * n * head_dim + 2 * n * n; }

template <typename T>
void attend_head(const HeadAttentionSpec& s, const HeadTask& t, const HeadBuffers<T>& b, T* context,
                 int64_t ld_out) {
  const int64_t n = t.n, d = s.head_dim;
  float *q = b.scratch, *k = q + n * d, *v = k + n * d, *out = v + n * d, *dropped = out + n * d;
  load_head(s, t, b, q, k, v);
  float* scores = b.probs;
  gemm_row_major(s.sgemm, false, true, n, n, d, q, d, k, d, scores, n);
  const float factor = score_factor(s);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float& score = scores[i * n + j];
      score = visible(s, t, i, j) ? scaled<T>(s.scaling, factor, score) : -INFINITY;
    }
  softmax_rows(scores, n);
  dropped_probs<T>(s, t, scores, dropped);
  gemm_row_major(s.sgemm, false, false, n, d, n, dropped, n, v, d, out, d);
  store(out, n, d, context, ld_out);
}

template <typename T>
void attend_head_backward(const HeadAttentionSpec& s, const HeadTask& t, const HeadBuffers<T>& b,
                          const T* grad_context, int64_t ld_grad, T* dq, T* dk, T* dv) {
  const int64_t n = t.n, d = s.head_dim;
  float *q = b.scratch, *k = q + n * d, *v = k + n * d, *grad = v + n * d;
  float *dq_f = grad + n * d, *dk_f = dq_f + n * d, *dv_f = dk_f + n * d;
  float *dropped = dv_f + n * d, *dscores = dropped + n * n;
  load_head(s, t, b, q, k, v);
  widen(grad_context, ld_grad, n, d, grad);
  dropped_probs<T>(s, t, b.probs, dropped);
  gemm_row_major(s.sgemm, true, false, n, d, n, dropped, n, grad, d, dv_f, d);
  store(dv_f, n, d, dv, b.ld);
  gemm_row_major(s.sgemm, false, true, n, n, d, grad, d, v, d, dscores, n);
  const float factor = score_factor(s);
  for (int64_t i = 0; i < n; ++i) {
    const float* p = b.probs + i * n;
    float* g = dscores + i * n;
    float dot = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      g[j] = held<T>(g[j]);
      if (s.dropout) g[j] *= keep_factor(s, t, i, j);
      dot += g[j] * p[j];
    }
    for (int64_t j = 0; j < n; ++j) g[j] = scaled<T>(s.scaling, factor, (g[j] - dot) * p[j]);
  }
  gemm_row_major(s.sgemm, false, false, n, d, n, dscores, n, k, d, dq_f, d);
  gemm_row_major(s.sgemm, true, false, n, d, n, dscores, n, q, d, dk_f, d);
  if (s.scaling == ScoreScaling::QueryFirst) {
    const float root = root_head_dim(s);
    for (int64_t i = 0; i < n * d; ++i) dq_f[i] = held<T>(held<T>(dq_f[i]) / root);
  }
  store(dq_f, n, d, dq, b.ld);
  store(dk_f, n, d, dk, b.ld);
}

template void attend_head<float>(const HeadAttentionSpec&, const HeadTask&, const HeadBuffers<float>&, float*,
                                 int64_t);
template void attend_head<c10::BFloat16>(const HeadAttentionSpec&, const HeadTask&,
                                         const HeadBuffers<c10::BFloat16>&, c10::BFloat16*, int64_t);
template void attend_head_backward<float>(const HeadAttentionSpec&, const HeadTask&, const HeadBuffers<float>&,
                                          const float*, int64_t, float*, float*, float*);
template void attend_head_backward<c10::BFloat16>(const HeadAttentionSpec&, const HeadTask&,
                                                  const HeadBuffers<c10::BFloat16>&, const c10::BFloat16*,
                                                  int64_t, c10::BFloat16*, c10::BFloat16*, c10::BFloat16*);

}  // namespace runner
