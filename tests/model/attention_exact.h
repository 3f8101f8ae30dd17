// Attention's exact values for a test layout of packed sequences: the float64
// context and gradients of q, k and v, their "absolute twins" that bound a
// rounded computation's error, and the fp32 bound. Shared by the CPU's packed
// attention tests and the GPU's variable-length ones.
#pragma once

#include "model/encoder_ops.h"

#include <torch/torch.h>

#include <cmath>
#include <vector>

namespace runner::test {

constexpr double kFloatUnit = 1.0 / (1 << 24);  // fp32 rounds to within 2^-24 of a value
constexpr double kBf16Unit = 1.0 / (1 << 9);    // bf16 keeps 8 significant bits

// Four sequences of a batch padded to 12, one of them a single token.
struct Layout {
  std::vector<int64_t> lengths{12, 7, 1, 5};
  int64_t length = 12, heads = 2, head_dim = 16;
  int64_t window = -1;  // local attention's reach, as ModernBERT's local layers
  int64_t batch() const { return static_cast<int64_t>(lengths.size()); }
  int64_t hidden() const { return heads * head_dim; }
  torch::Tensor token_index() const {
    std::vector<int64_t> flat;
    for (int64_t b = 0; b < batch(); ++b)
      for (int64_t j = 0; j < lengths[b]; ++j) flat.push_back(b * length + j);
    return torch::tensor(flat, torch::kInt64);
  }
  torch::Tensor mask() const {  // [B, L] 1 for a token
    auto m = torch::zeros({batch(), length}, torch::kInt64);
    for (int64_t b = 0; b < batch(); ++b) m[b].narrow(0, 0, lengths[b]).fill_(1);
    return m;
  }
  torch::Tensor hidden_pairs() const {  // [B, 1, L, L] true where a query may not see a key
    auto keys = mask().to(torch::kBool).view({batch(), 1, 1, length});
    if (window < 0) return keys.logical_not().expand({-1, 1, length, length});
    auto columns = torch::arange(length);
    auto near = (columns.unsqueeze(1) - columns.unsqueeze(0)).abs() <= window;
    return (keys & near.view({1, 1, length, length})).logical_not();
  }
};

struct Result {
  torch::Tensor context, grad_qkv;
};

// [T, H] packed rows -> [B, heads, L, d] (padding rows zero), and back.
inline torch::Tensor to_heads(const Layout& l, const torch::Tensor& packed) {
  return torch::zeros({l.batch() * l.length, packed.size(1)}, packed.options())
      .index_copy(0, l.token_index(), packed)
      .view({l.batch(), l.length, -1, l.head_dim})
      .permute({0, 2, 1, 3});
}
inline torch::Tensor to_packed(const Layout& l, const torch::Tensor& heads) {
  return packed_context(heads, l.token_index());
}

// The exact values, in float64 from the same inputs and dropout mask, and their
// "absolute twins": the same sums with every term replaced by its absolute
// value. A computation of sums and products rounded with unit u at k steps
// lies within about k u times its twin of the exact value (Higham, Accuracy and
// Stability of Numerical Algorithms, ch. 3).
struct Exact {
  Result value, twin;
  double score_twin = 0;  // the largest |q||k|^T / sqrt(d) over token pairs
};

inline Exact exact(const Layout& l, const torch::Tensor& qkv_in, const torch::Tensor& upstream, const torch::Tensor& noise) {
  auto qkv = qkv_in.detach().to(torch::kDouble).requires_grad_(true);
  auto padded = padded_qkv(qkv, l.token_index(), l.batch(), l.length, l.heads);
  auto q = padded[0], k = padded[1], v = padded[2];
  const double root = std::sqrt(static_cast<double>(l.head_dim));
  auto padding = l.hidden_pairs();
  // The lowest double, not -inf: a padded query row that sees no key (outside
  // every window) must not turn the whole backward into NaN.
  auto scores = (torch::matmul(q, k.transpose(-1, -2)) / root).masked_fill(padding, lowest_value(torch::kDouble));
  auto probs = torch::softmax(scores, -1);
  auto dropped = probs * noise;
  auto context = torch::matmul(dropped, v);
  (to_packed(l, context) * upstream).sum().backward();
  Exact e;
  e.value = {to_packed(l, context).detach(), qkv.grad()};
  torch::NoGradGuard no_grad;
  auto aq = q.abs(), ak = k.abs(), av = v.abs(), g = to_heads(l, upstream).abs();
  e.score_twin = (torch::matmul(aq, ak.transpose(-1, -2)) / root).masked_fill(padding, 0).max().item<double>();
  auto p = probs.detach(), pd = dropped.detach();
  auto dp = torch::matmul(g, av.transpose(-1, -2)) * noise;
  auto ds = p * (dp + (p * dp).sum(-1, true));
  auto dq = torch::matmul(ds, ak) / root, dk = torch::matmul(ds.transpose(-1, -2), aq) / root;
  auto dv = torch::matmul(pd.transpose(-1, -2), g);
  auto grads = torch::cat({to_packed(l, dq), to_packed(l, dk), to_packed(l, dv)}, 1);
  e.twin = {to_packed(l, torch::matmul(pd, av)), grads};
  return e;
}

// Each path's rounding, as relative multiples of the twins.
struct Bound {
  double context, grad;
};

// fp32, n = L tokens, d = head_dim. A score is a d-term dot product and one
// division: (d + 1) u of its twin, so e = (d + 1) u max|s| moves each
// probability by a factor within exp(2e) - 1. Softmax rounds exp (Sleef: 1 ulp
// = 2u), the n-term sum, its reciprocal and the product: (n + 4) u; dropout's
// scaling u; the context's n-term sum n u: (2n + 5) u in all. The gradient
// chain adds d (dP = G V^T), n (the softmax's dot), 3 (its product and
// difference, the 1/sqrt(d)) and n + 1 (dQ's and dK's sums) steps, and the
// probabilities enter dS twice. `u` is one step's rounding: fp32's unit, or a
// coarser one for a kernel whose steps round more.
inline Bound float_bound(const Layout& l, double score_twin, double u = kFloatUnit) {
  const double n = l.length, d = l.head_dim;
  const double shift = std::expm1(2 * (d + 1) * u * score_twin);
  return {shift + (2 * n + 5) * u, 2 * shift + (3 * n + 2 * d + 12) * u};
}

// The largest of |a - b| - k * twin over the elements: <= 0 when a is within
// k twins of b everywhere.
inline double excess(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& twin, double k) {
  return ((a - b).abs() - k * twin).max().item<double>();
}

}  // namespace runner::test
