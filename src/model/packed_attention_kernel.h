// Attention of one sequence and one head on packed tokens: the scores, softmax,
// dropout and context of Hugging Face's eager attention for the sequence's n
// real tokens only, with the roundings that op sequence makes. Called once per
// (sequence, head) inside at::parallel_for by model/packed_attention.cpp.
#pragma once

#include "model/blas_gemm.h"
#include "model/dropout_kernel.h"
#include "model/softmax_kernel.h"

#include <c10/util/BFloat16.h>

#include <cstdint>

namespace runner {

// Where the 1/sqrt(d) goes, as each family's Python writes it.
enum class ScoreScaling {
  AfterProduct,     // BERT: (q k^T) / sqrt(d), then + mask
  QueryFirst,       // DistilBERT: (q / sqrt(d)) k^T, then masked_fill
  TimesInverseRoot, // ModernBERT: (q k^T) * d^-0.5, then + mask
};

// What every task of one call shares.
struct HeadAttentionSpec {
  Sgemm sgemm = nullptr;
  int64_t head_dim = 0;
  ScoreScaling scaling = ScoreScaling::AfterProduct;
  bool dropout = false;  // training with p > 0
  DropoutMask mask;
  float dropout_scale = 1.0f;  // 1 / (1 - p)
  // Local attention: a token sees the tokens within `window` columns of its
  // own (ModernBERT's local_attention / 2); negative: every token.
  int64_t window = -1;
};

// One (sequence, head): its rows of q, k and v (row-major, leading dimension
// `ld`, the head's columns already offset), and where dropout's element index
// comes from: the padded [B, heads, L, L] probabilities the padded path drops,
// so both paths draw the same mask.
struct HeadTask {
  int64_t n = 0;                    // the sequence's real tokens
  const int64_t* columns = nullptr;  // each token's column in its padded row
  uint64_t mask_base = 0;           // (b * heads + h) * L * L
  int64_t padded_length = 0;        // L
};

// Element type: float (fp32) or c10::BFloat16 (under bf16 autocast: products
// and the context rounded to bf16 as bmm rounds them, softmax in float).
template <typename T>
struct HeadBuffers {
  const T *q, *k, *v;
  int64_t ld;              // of q, k, v and their gradients
  float* probs;            // [n, n] softmax output, kept for the backward
  float* scratch;          // head_scratch_floats(n, d)
};

int64_t head_scratch_floats(int64_t n, int64_t head_dim);

// Dropout's factors of one head's [n, n] probabilities: row i holds the padded
// path's elements of the same token pairs, so both paths draw the same mask.
void keep_factors(const HeadAttentionSpec& s, const HeadTask& t, float* keep);

// context [n, d] (leading dimension ld_out) of one head.
template <typename T>
void attend_head(const HeadAttentionSpec& s, const HeadTask& t, const HeadBuffers<T>& b, T* context,
                 int64_t ld_out);

// dq, dk, dv [n, d] (leading dimension b.ld) from d context (ld_grad) and the
// kept probabilities.
template <typename T>
void attend_head_backward(const HeadAttentionSpec& s, const HeadTask& t, const HeadBuffers<T>& b,
                          const T* grad_context, int64_t ld_grad, T* dq, T* dk, T* dv);

}  // namespace runner
