// How far a bf16-autocast forward's logits may lie from the same model's fp32
// logits: a bound derived from bf16's rounding, not fitted to one CPU (a bound
// measured on CPUs with native bf16 failed on an AVX2 one, whose LibTorch takes
// another GEMM). Used by the bf16 parity tests of every family.
#pragma once

#include "util/cpu_info.h"

#include <torch/torch.h>
#include <torch/version.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace runner::test {

// bf16 keeps 8 significant bits: one rounding moves a value by at most 2^-9 of it.
constexpr double kBf16Rounding = 1.0 / 512;

// Which bf16 GEMM LibTorch runs: oneDNN's where its check passes (avx512bw, avx512vl
// and avx512dq, in 1.13 and 2.x alike, with oneDNN enabled), else ATen's own. Both
// sum in fp32 and round the result once, except LibTorch 1.x's ATen kernel, which
// keeps its partial sums in bf16 (ATen/native/cpu/BlasKernel.cpp: `sum` and
// gemm_notrans_ accumulate in scalar_t there), rounding once per addition.
inline bool bf16_gemm_sums_in_bf16() {
  if (TORCH_VERSION_MAJOR >= 2) return false;
  const auto flags = cpu_vector_flags();  // avx512bw stands for the three: no CPU has it without vl and dq
  const bool avx512 = std::find(flags.begin(), flags.end(), "avx512bw") != flags.end();
  return !avx512 || !at::globalContext().userEnabledMkldnn() || cpu_bf16_emulation_forced();
}

// The shape of an encoder on the path to a logit.
struct EncoderPath {
  int64_t layers, hidden, intermediate, head_dim, keys;
};

// The bf16 roundings on the path from the embeddings to one logit. Per layer:
//   q, k, v projections: input, weight and output rounded, 3 each      9
//   scores q k^T: the output and its 1/sqrt(d) scaling                  2
//   probabilities rounded for the context product, its output          2
//   attention output: weight and output (its input is bf16 already)    2
//   FFN in: input, weight, output 3; GELU's output 1; FFN out 2        6
// The head: a pooler or pre-classifier (input, weight, output, its activation: 4)
// and the classifier (input, weight, output: 3). A GEMM that keeps its running sum
// in bf16 adds one rounding per term added: its inner dimension.
inline double bf16_roundings_to_logit(const EncoderPath& p, bool sums_in_bf16) {
  double layer = 21, head = 7;
  if (sums_in_bf16) {
    layer += 3 * p.hidden + p.head_dim + p.keys + p.hidden + p.hidden + p.intermediate;
    head += 2 * p.hidden;
  }
  return static_cast<double>(p.layers) * layer + head;
}

// The classifier's products' 2-norm, sqrt(sum_j (W_cj x_ij)^2 + b_c^2), the largest
// over examples i and classes c, for its fp32 input x [B, H], weight [C, H], bias [C].
inline double classifier_product_norm(const torch::Tensor& x, const torch::Tensor& weight,
                                      const torch::Tensor& bias) {
  torch::NoGradGuard no_grad;
  auto products = x.to(torch::kFloat64).unsqueeze(1) * weight.to(torch::kFloat64).unsqueeze(0);
  auto squares = products.pow(2).sum(-1) + bias.to(torch::kFloat64).pow(2).unsqueeze(0);
  return squares.sqrt().max().item<double>();
}

// The bound on |z_bf16 - z_fp32| for one logit. To first order each of the N
// roundings adds an independent error of at most 2^-9 of the value it rounds
// (LayerNorm renormalises every sublayer; softmax, GELU, tanh and ReLU have
// slopes of at most about 1, so no stage amplifies them), which reaches the logit
// through the classifier's products W_cj x_j. Hoeffding's inequality for N
// independent bounded terms: the sum exceeds lambda sqrt(N) 2^-9 ||W_c o x||_2 with
// probability at most 2 exp(-lambda^2 / 2); lambda = 6 makes that 3e-8 per logit.
// (The worst case, every rounding of one sign, is N 2^-9 ||W_c o x||_1: about 0.8
// for tiny_bert, larger than its logits, so no use as a test.)
inline double bf16_logit_bound(const EncoderPath& p, bool sums_in_bf16, double product_norm) {
  constexpr double kLambda = 6;
  return kLambda * std::sqrt(bf16_roundings_to_logit(p, sums_in_bf16)) * kBf16Rounding * product_norm;
}

}  // namespace runner::test
