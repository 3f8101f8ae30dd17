// The fused rotary pass on packed q, k and v against transformers'
// apply_rotary_pos_emb written as its op sequence (q * cos + rotate_half(q) *
// sin in float32, then the cast back), with autograd's gradient: equal bit for
// bit, in fp32 and bf16, v passed through untouched.
#include "model/modernbert.h"
#include "model/packed_rotary.h"

#include "catch.h"

using namespace runner;

namespace {

torch::Tensor rotate_half(const torch::Tensor& x) {
  const int64_t half = x.size(-1) / 2;
  return torch::cat({-x.slice(-1, half), x.slice(-1, 0, half)}, -1);
}

// The op sequence the fused pass replaces: [T, 3H] -> q, k rotated, v as is.
torch::Tensor reference_rotary(const torch::Tensor& qkv, const torch::Tensor& cos, const torch::Tensor& sin,
                               int64_t heads) {
  const int64_t t = qkv.size(0), d = cos.size(1);
  auto parts = qkv.view({t, 3, heads, d});
  auto c = cos.unsqueeze(1), s = sin.unsqueeze(1);
  std::vector<torch::Tensor> out;
  for (int64_t i = 0; i < 2; ++i) {
    auto x = parts.select(1, i).to(torch::kFloat32);
    out.push_back((x * c + rotate_half(x) * s).to(qkv.scalar_type()).reshape({t, heads * d}));
  }
  out.push_back(parts.select(1, 2).reshape({t, heads * d}));
  return torch::cat(out, 1);
}

struct Result {
  torch::Tensor value, grad;
};

template <typename Rotary>
Result run(const torch::Tensor& input, const torch::Tensor& cos, const torch::Tensor& sin,
           const torch::Tensor& upstream, const Rotary& rotary) {
  auto x = input.clone().requires_grad_(true);
  auto y = rotary(x, cos, sin, int64_t{3});
  (y.to(torch::kFloat32) * upstream).sum().backward();
  return {y.detach(), x.grad()};
}

bool same_bits(const torch::Tensor& a, const torch::Tensor& b) {
  return a.scalar_type() == b.scalar_type() && a.sizes() == b.sizes() && torch::equal(a, b);
}

}  // namespace

TEST_CASE("the fused rotary pass equals apply_rotary_pos_emb and its autograd gradient bit for bit",
          "[model][packed][modernbert]") {
  torch::manual_seed(7);
  // 9 tokens of 3 heads of 16: the tables of columns 0..8 of two sequences.
  const int64_t heads = 3, d = 16, tokens = 9;
  auto columns = torch::tensor({0, 1, 2, 3, 4, 0, 1, 2, 3}, torch::kLong);
  auto [cos_table, sin_table] = rotary_tables(16, d, 160000.0, torch::kCPU);
  auto cos = cos_table.index_select(0, columns), sin = sin_table.index_select(0, columns);
  for (auto dtype : {torch::kFloat32, torch::kBFloat16}) {
    INFO("dtype " << c10::toString(dtype));
    auto input = (torch::randn({tokens, 3 * heads * d}) * 3).to(dtype);
    auto upstream = torch::randn({tokens, 3 * heads * d});
    Result fused = run(input, cos, sin, upstream, packed_rotary);
    Result reference = run(input, cos, sin, upstream, reference_rotary);
    CHECK(same_bits(fused.value, reference.value));
    CHECK(same_bits(fused.grad, reference.grad));
    // v and its gradient pass through.
    CHECK(torch::equal(fused.value.slice(1, 2 * heads * d), input.slice(1, 2 * heads * d)));
    // The rotation moved q and k: the check above is not comparing copies.
    CHECK_FALSE(torch::equal(fused.value.slice(1, 0, heads * d), input.slice(1, 0, heads * d)));
  }
}
