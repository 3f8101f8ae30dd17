#include "model/packed_attention_kernel.h"

#include "model/head_gemm.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

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

// The head's q, k and v as the products read them. fp32 rows are read where
// they lie, without a copy; bf16 rows are widened into scratch, and a query
// that the family scales first is a scaled copy.
struct Operands {
  const float *q, *k, *v;
  int64_t ld_q, ld_kv;
};

// DistilBERT's q / sqrt(d), in place on a float copy, rounded as T.
template <typename T>
void scale_query(const HeadAttentionSpec& s, int64_t n, float* q) {
  const float root = root_head_dim(s);
  for (int64_t i = 0; i < n * s.head_dim; ++i) q[i] = held<T>(q[i] / root);
}

Operands operands(const HeadAttentionSpec& s, const HeadTask& t, const HeadBuffers<float>& b, float* scratch) {
  if (s.scaling != ScoreScaling::QueryFirst) return {b.q, b.k, b.v, b.ld, b.ld};
  widen(b.q, b.ld, t.n, s.head_dim, scratch);
  scale_query<float>(s, t.n, scratch);
  return {scratch, b.k, b.v, s.head_dim, b.ld};
}

Operands operands(const HeadAttentionSpec& s, const HeadTask& t, const HeadBuffers<c10::BFloat16>& b,
                  float* scratch) {
  const int64_t n = t.n, d = s.head_dim;
  float *q = scratch, *k = q + n * d, *v = k + n * d;
  widen(b.q, b.ld, n, d, q);
  widen(b.k, b.ld, n, d, k);
  widen(b.v, b.ld, n, d, v);
  if (s.scaling == ScoreScaling::QueryFirst) scale_query<c10::BFloat16>(s, n, q);
  return {q, k, v, d, d};
}

// The probabilities as the second product reads them: after dropout (with
// `keep`) and rounded to T. fp32 without dropout reads `probs` itself.
template <typename T>
const float* dropped_probs(const HeadAttentionSpec& s, int64_t n, const float* probs, const float* keep,
                           float* out) {
  if (std::is_same_v<T, float> && !s.dropout) return probs;
  for (int64_t i = 0; i < n * n; ++i) out[i] = held<T>(s.dropout ? probs[i] * keep[i] : probs[i]);
  return out;
}

// Rows a product reads: fp32 ones where they lie, bf16 ones widened into
// scratch (leading dimension d).
template <typename T>
const float* input_rows(const T* in, int64_t n, int64_t d, float* scratch, int64_t* ld) {
  if constexpr (std::is_same_v<T, float>) return in;
  widen(in, *ld, n, d, scratch);
  *ld = d;
  return scratch;
}

// Where a product's [n, d] result goes: straight into fp32 output rows, or
// into scratch (leading dimension d) to be rounded into bf16 ones.
template <typename T>
float* result_rows(T* out, float* scratch, int64_t d, int64_t* ld) {
  if constexpr (std::is_same_v<T, float>) return out;
  *ld = d;
  return scratch;
}

template <typename T>
void finish_rows(const float* rows, int64_t n, int64_t d, T* out, int64_t ld) {
  if constexpr (!std::is_same_v<T, float>) store(rows, n, d, out, ld);
}

}  // namespace

void keep_factors(const HeadAttentionSpec& s, const HeadTask& t, float* keep) {
  for (int64_t i = 0; i < t.n; ++i) {
    const uint64_t row_base = t.mask_base + uint64_t(t.columns[i]) * uint64_t(t.padded_length);
    dropout_row_factors(s.mask, row_base, t.columns, t.n, s.dropout_scale, keep + i * t.n);
  }
}

int64_t head_scratch_floats(int64_t n, int64_t head_dim) { return 8 * n * head_dim + 3 * n * n; }

template <typename T>
void attend_head(const HeadAttentionSpec& s, const HeadTask& t, const HeadBuffers<T>& b, T* context,
                 int64_t ld_out) {
  const int64_t n = t.n, d = s.head_dim;
  float *out = b.scratch + 3 * n * d, *dropped = out + n * d, *keep = dropped + n * n;
  const Operands o = operands(s, t, b, b.scratch);
  float* scores = b.probs;
  head_gemm(s.sgemm, false, true, n, n, d, o.q, o.ld_q, o.k, o.ld_kv, scores, n);
  const float factor = score_factor(s);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float& score = scores[i * n + j];
      score = visible(s, t, i, j) ? scaled<T>(s.scaling, factor, score) : -INFINITY;
    }
  softmax_rows(scores, n);
  if (s.dropout) keep_factors(s, t, keep);
  const float* a = dropped_probs<T>(s, n, scores, keep, dropped);
  int64_t ld = ld_out;
  float* rows = result_rows(context, out, d, &ld);
  head_gemm(s.sgemm, false, false, n, d, n, a, n, o.v, o.ld_kv, rows, ld);
  finish_rows(rows, n, d, context, ld_out);
}

// d scores from d probabilities, in place: dropout's factors, then softmax's
// backward (g - sum(g p)) p, then the scaling's.
template <typename T>
void score_gradients(const HeadAttentionSpec& s, int64_t n, const float* probs, const float* keep, float* dscores) {
  const float factor = score_factor(s);
  for (int64_t i = 0; i < n; ++i) {
    const float* p = probs + i * n;
    float* g = dscores + i * n;
    float dot = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      g[j] = held<T>(g[j]);
      if (s.dropout) g[j] *= keep[i * n + j];
      dot += g[j] * p[j];
    }
    for (int64_t j = 0; j < n; ++j) g[j] = scaled<T>(s.scaling, factor, (g[j] - dot) * p[j]);
  }
}

template <typename T>
void attend_head_backward(const HeadAttentionSpec& s, const HeadTask& t, const HeadBuffers<T>& b,
                          const T* grad_context, int64_t ld_grad, T* dq, T* dk, T* dv) {
  const int64_t n = t.n, d = s.head_dim;
  float *grad_f = b.scratch + 3 * n * d, *dq_f = grad_f + n * d, *dk_f = dq_f + n * d, *dv_f = dk_f + n * d;
  float *dropped = dv_f + n * d, *dscores = dropped + n * n, *keep = dscores + n * n;
  const Operands o = operands(s, t, b, b.scratch);
  int64_t ld_g = ld_grad;
  const float* grad = input_rows(grad_context, n, d, grad_f, &ld_g);
  if (s.dropout) keep_factors(s, t, keep);
  const float* a = dropped_probs<T>(s, n, b.probs, keep, dropped);
  int64_t ld_v = b.ld, ld_q = b.ld, ld_k = b.ld;
  float* dv_rows = result_rows(dv, dv_f, d, &ld_v);
  head_gemm(s.sgemm, true, false, n, d, n, a, n, grad, ld_g, dv_rows, ld_v);
  finish_rows(dv_rows, n, d, dv, b.ld);
  head_gemm(s.sgemm, false, true, n, n, d, grad, ld_g, o.v, o.ld_kv, dscores, n);
  score_gradients<T>(s, n, b.probs, keep, dscores);
  float* dq_rows = result_rows(dq, dq_f, d, &ld_q);
  float* dk_rows = result_rows(dk, dk_f, d, &ld_k);
  head_gemm(s.sgemm, false, false, n, d, n, dscores, n, o.k, o.ld_kv, dq_rows, ld_q);
  head_gemm(s.sgemm, true, false, n, d, n, dscores, n, o.q, o.ld_q, dk_rows, ld_k);
  if (s.scaling == ScoreScaling::QueryFirst) {
    const float root = root_head_dim(s);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t c = 0; c < d; ++c) {
        float& x = dq_rows[i * ld_q + c];
        x = held<T>(held<T>(x) / root);
      }
  }
  finish_rows(dq_rows, n, d, dq, b.ld);
  finish_rows(dk_rows, n, d, dk, b.ld);
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
