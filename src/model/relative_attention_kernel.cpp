#include "model/relative_attention_kernel.h"

#include "model/head_gemm.h"

#include <algorithm>
#include <cstring>

namespace runner {
namespace {

// k / s, as transformers divides the keys before the content product.
void divided_keys(const float* k, int64_t ld, int64_t n, int64_t d, float scale, float* out) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < d; ++c) out[i * d + c] = k[i * ld + c] / scale;
}

// Each term's table row for (query i, key j), relative to the window's first.
struct TermRows {
  const int32_t* index;
  int64_t length, first;
  const int64_t* columns;
  int64_t row(int64_t a, int64_t b) const { return index[columns[a] * length + columns[b]] - first; }
};

TermRows term_rows(const RelativeTerm& term, const TableWindow& w, const HeadTask& t) {
  return {term.index, t.padded_length, w.first, t.columns};
}

// scores (the content product) + (c2p / s + p2c / s), in that order of sums.
void add_relative_terms(const RelativeHeadSpec& s, const HeadTask& t, const RelativeHeadBuffers& b,
                        const float* c2p, const float* p2c, float* scores) {
  const int64_t n = t.n;
  const TermRows c = term_rows(s.c2p, b.c2p, t), p = term_rows(s.p2c, b.p2c, t);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float term = 0.0f;
      if (s.c2p.index) term = c2p[i * b.c2p.rows + c.row(i, j)] / s.scale;
      if (s.p2c.index) {
        const float from_key = p2c[j * b.p2c.rows + p.row(j, i)] / s.scale;
        term = s.c2p.index ? term + from_key : from_key;
      }
      if (s.c2p.index || s.p2c.index) scores[i * n + j] += term;
    }
}

// d scores from d probabilities, in place: dropout's factors, then softmax's
// backward (g - sum(g p)) p.
void score_gradients(const HeadAttentionSpec& s, int64_t n, const float* probs, const float* keep, float* g) {
  for (int64_t i = 0; i < n; ++i) {
    const float* p = probs + i * n;
    float* row = g + i * n;
    float dot = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      if (s.dropout) row[j] *= keep[i * n + j];
      dot += row[j] * p[j];
    }
    for (int64_t j = 0; j < n; ++j) row[j] = (row[j] - dot) * p[j];
  }
}

// A term's d scores gathered back to its [n, rows] products (gather's backward
// adds the pairs that read one row); `by_key` for p2c, whose rows are keys.
void scatter_term(const RelativeHeadSpec& s, const TermRows& rows, int64_t n, int64_t width, bool by_key,
                  const float* dscores, float* out) {
  std::memset(out, 0, sizeof(float) * n * width);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const float g = dscores[i * n + j] / s.scale;
      if (by_key)
        out[j * width + rows.row(j, i)] += g;
      else
        out[i * width + rows.row(i, j)] += g;
    }
}

}  // namespace

int64_t relative_head_scratch_floats(int64_t n, int64_t head_dim, int64_t c2p_rows, int64_t p2c_rows) {
  return n * head_dim + 3 * n * n + n * (c2p_rows + p2c_rows);
}

TableWindow term_window(const RelativeTerm& term, const int64_t* columns, int64_t n, int64_t padded_length) {
  if (!term.index || n == 0) return {};
  int32_t low = term.index[columns[0] * padded_length + columns[0]], high = low;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      const int32_t row = term.index[columns[i] * padded_length + columns[j]];
      low = std::min(low, row), high = std::max(high, row);
    }
  return {low, high - low + 1};
}

void attend_relative_head(const RelativeHeadSpec& s, const HeadTask& t, const RelativeHeadBuffers& b,
                          float* context, int64_t ld_out) {
  const int64_t n = t.n, d = s.head.head_dim;
  float *keys = b.scratch, *c2p = keys + n * d, *p2c = c2p + n * b.c2p.rows, *dropped = p2c + n * b.p2c.rows;
  float* keep = dropped + n * n;
  const Sgemm sgemm = s.head.sgemm;
  divided_keys(b.k, b.ld, n, d, s.scale, keys);
  head_gemm(sgemm, false, true, n, n, d, b.q, b.ld, keys, d, b.probs, n);
  if (s.c2p.index) head_gemm(sgemm, false, true, n, b.c2p.rows, d, b.q, b.ld, b.pos_key, b.ld_table, c2p, b.c2p.rows);
  if (s.p2c.index)
    head_gemm(sgemm, false, true, n, b.p2c.rows, d, b.k, b.ld, b.pos_query, b.ld_table, p2c, b.p2c.rows);
  add_relative_terms(s, t, b, c2p, p2c, b.probs);
  softmax_rows(b.probs, n);
  const float* a = b.probs;
  if (s.head.dropout) {
    keep_factors(s.head, t, keep);
    for (int64_t i = 0; i < n * n; ++i) dropped[i] = b.probs[i] * keep[i];
    a = dropped;
  }
  head_gemm(sgemm, false, false, n, d, n, a, n, b.v, b.ld, context, ld_out);
}

void attend_relative_head_backward(const RelativeHeadSpec& s, const HeadTask& t, const RelativeHeadBuffers& b,
                                   const float* grad, int64_t ld_grad, float* dq, float* dk, float* dv,
                                   float* d_pos_key, float* d_pos_query) {
  const int64_t n = t.n, d = s.head.head_dim;
  float *keys = b.scratch, *dscores = keys + n * d, *dropped = dscores + n * n, *keep = dropped + n * n;
  float *dc2p = keep + n * n, *dp2c = dc2p + n * b.c2p.rows;
  const Sgemm sgemm = s.head.sgemm;
  divided_keys(b.k, b.ld, n, d, s.scale, keys);
  const float* a = b.probs;
  if (s.head.dropout) {
    keep_factors(s.head, t, keep);
    for (int64_t i = 0; i < n * n; ++i) dropped[i] = b.probs[i] * keep[i];
    a = dropped;
  }
  head_gemm(sgemm, true, false, n, d, n, a, n, grad, ld_grad, dv, b.ld);
  head_gemm(sgemm, false, true, n, n, d, grad, ld_grad, b.v, b.ld, dscores, n);
  score_gradients(s.head, n, b.probs, keep, dscores);
  // The content product: dq = dS (k / s), dk = (dS^T q) / s.
  head_gemm(sgemm, false, false, n, d, n, dscores, n, keys, d, dq, b.ld);
  head_gemm(sgemm, true, false, n, d, n, dscores, n, b.q, b.ld, dk, b.ld);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < d; ++c) dk[i * b.ld + c] /= s.scale;
  if (s.c2p.index) {  // c2p = q pos_key^T: dq += dC pos_key, d pos_key = dC^T q
    scatter_term(s, term_rows(s.c2p, b.c2p, t), n, b.c2p.rows, false, dscores, dc2p);
    head_gemm(sgemm, false, false, n, d, b.c2p.rows, dc2p, b.c2p.rows, b.pos_key, b.ld_table, dq, b.ld, 1.0f);
    head_gemm(sgemm, true, false, b.c2p.rows, d, n, dc2p, b.c2p.rows, b.q, b.ld, d_pos_key, d);
  }
  if (s.p2c.index) {  // p2c = k pos_query^T: dk += dP pos_query, d pos_query = dP^T k
    scatter_term(s, term_rows(s.p2c, b.p2c, t), n, b.p2c.rows, true, dscores, dp2c);
    head_gemm(sgemm, false, false, n, d, b.p2c.rows, dp2c, b.p2c.rows, b.pos_query, b.ld_table, dk, b.ld,
                   1.0f);
    head_gemm(sgemm, true, false, b.p2c.rows, d, n, dp2c, b.p2c.rows, b.k, b.ld, d_pos_query, d);
  }
}

}  // namespace runner
