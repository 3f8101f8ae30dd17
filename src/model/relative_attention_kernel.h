// DeBERTa's disentangled attention of one sequence and one head on packed
// tokens, in fp32: content scores q (k / s)^T plus a content-to-position term
// q . pos_key[row] / s and a position-to-content term k . pos_query[row] / s,
// each read at the row a table of relative distances names for the token pair,
// then softmax, dropout and the context, with the roundings of transformers'
// op sequence (s = sqrt(d * (1 + terms))). Only the n real tokens and the
// table rows they read enter the products. Called once per (sequence, head)
// inside at::parallel_for by model/packed_relative_attention.cpp.
#pragma once

#include "model/packed_attention_kernel.h"

#include <cstdint>

namespace runner {

// The contiguous rows of one head's projected table that a sequence reads.
struct TableWindow {
  int64_t first = 0, rows = 0;
};

// One relative term: [L, L] row indices into the projected table by (query
// column, key column), as transformers' clamp(+-relative_pos + span); null
// when the model has no such term.
struct RelativeTerm {
  const int32_t* index = nullptr;
};

// What every task of one call shares.
struct RelativeHeadSpec {
  HeadAttentionSpec head;  // sgemm, head_dim, dropout (scaling and window unused)
  float scale = 1.0f;      // s
  RelativeTerm c2p, p2c;   // c2p reads index[i][j], p2c index[j][i] (transposed)
};

// One (sequence, head)'s operands: its rows of q, k and v (leading dimension
// ld), and for each term the head's columns of the projected table from the
// window's first row (leading dimension ld_table), null without the term.
struct RelativeHeadBuffers {
  const float *q, *k, *v;
  int64_t ld;
  const float *pos_key, *pos_query;
  int64_t ld_table;
  TableWindow c2p, p2c;
  float* probs;    // [n, n] softmax output, kept for the backward
  float* scratch;  // relative_head_scratch_floats(n, d, c2p.rows, p2c.rows)
};

int64_t relative_head_scratch_floats(int64_t n, int64_t head_dim, int64_t c2p_rows, int64_t p2c_rows);

// The rows of a term's table that a sequence with tokens at `columns` reads.
TableWindow term_window(const RelativeTerm& term, const int64_t* columns, int64_t n, int64_t padded_length);

// context [n, d] (leading dimension ld_out) of one head.
void attend_relative_head(const RelativeHeadSpec& s, const HeadTask& t, const RelativeHeadBuffers& b,
                          float* context, int64_t ld_out);

// dq, dk, dv [n, d] (leading dimension b.ld) from d context (ld_grad) and the
// kept probabilities; each term's table gradient over its window
// [rows, d] (contiguous), this sequence's share only.
void attend_relative_head_backward(const RelativeHeadSpec& s, const HeadTask& t, const RelativeHeadBuffers& b,
                                   const float* grad_context, int64_t ld_grad, float* dq, float* dk, float* dv,
                                   float* d_pos_key, float* d_pos_query);

}  // namespace runner
