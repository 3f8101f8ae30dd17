// train_dropout on the CPU: the mask comes from a counter-based hash (model/
// dropout.cpp), so what must hold is dropout's contract, checked against torch
// computing x * noise itself for the same mask: kept elements scaled exactly as
// torch scales them, the keep rate 1 - p, the gradient masked identically, the
// run's seed (the default generator) deciding everything, any thread count
// giving the same mask.
#include "model/encoder_ops.h"
#include "model/dropout_kernel.h"

#include "catch.h"

#include <cmath>

using namespace runner;

namespace {

// What torch computes for the mask our output shows: x * noise, noise = kept /
// (1 - p) in x's dtype (torch's dropout: bernoulli_(1 - p).div_(1 - p), then mul).
torch::Tensor torch_masked(const torch::Tensor& x, const torch::Tensor& kept, double p) {
  auto noise = kept.to(x.scalar_type()).div_(1 - p);
  return x * noise;
}

struct Dropped {
  torch::Tensor out, grad_in, weights;
};

Dropped drop(const torch::Tensor& x_in, double p) {
  auto x = x_in.detach().clone().requires_grad_(true);
  auto out = train_dropout(x, p, true);
  auto weights = torch::randn_like(out);
  (out * weights).sum().backward();
  return {out.detach(), x.grad(), weights};
}

}  // namespace

TEST_CASE("dropout keeps 1 - p of the elements, scaled exactly as torch scales them", "[model]") {
  torch::manual_seed(11);
  for (double p : {0.1, 0.5}) {
    for (auto dtype : {torch::kFloat, torch::kBFloat16}) {
      auto x = (torch::rand({1000, 1000}) + 0.5).to(dtype);  // no zeros: out == 0 means dropped
      auto r = drop(x, p);
      auto kept = r.out != 0;
      const double n = x.numel(), rate = kept.sum().item<double>() / n;
      INFO("p " << p << " dtype " << dtype << " keep rate " << rate);
      // Binomial(1e6, 1 - p): 5 standard deviations.
      CHECK(std::abs(rate - (1 - p)) < 5 * std::sqrt(p * (1 - p) / n));
      CHECK(torch::equal(r.out, torch_masked(x, kept, p)));
      CHECK(torch::equal(r.grad_in, torch_masked(r.weights.to(dtype), kept, p)));
    }
  }
}

TEST_CASE("dropout masks follow the run's seed and not the thread count", "[model]") {
  const int threads = at::get_num_threads();
  auto x = torch::rand({257, 129}) + 0.5;  // odd sizes: chunks split unevenly
  at::set_num_threads(1);
  torch::manual_seed(5);
  auto first = train_dropout(x, 0.1, true), second = train_dropout(x, 0.1, true);
  at::set_num_threads(2);
  torch::manual_seed(5);
  auto again = train_dropout(x, 0.1, true);
  auto gen = at::detail::getDefaultCPUGenerator();
  auto state = gen.get_state();
  auto next = train_dropout(x, 0.1, true);
  gen.set_state(state);  // as a resumed run restores it
  auto resumed = train_dropout(x, 0.1, true);
  at::set_num_threads(threads);
  CHECK(torch::equal(first, again));
  CHECK_FALSE(torch::equal(first, second));  // each call draws a new mask
  CHECK(torch::equal(next, resumed));
  // Neighbouring rows' masks are not copies of each other.
  auto kept = (first != 0).to(torch::kFloat);
  CHECK_FALSE(torch::equal(kept[0], kept[1]));
}

TEST_CASE("dropout is the identity in eval mode and at p = 0, and takes strided input", "[model]") {
  auto x = torch::randn({4, 6});
  CHECK(train_dropout(x, 0.1, false).is_same(x));
  CHECK(train_dropout(x, 0.0, true).is_same(x));
  auto strided = torch::rand({6, 8}).add_(0.5).t();  // not contiguous
  torch::manual_seed(2);
  auto a = train_dropout(strided, 0.3, true);
  torch::manual_seed(2);
  auto b = train_dropout(strided.contiguous(), 0.3, true);
  CHECK(torch::equal(a, b));
  CHECK(torch::equal(a, torch_masked(strided, a != 0, 0.3)));
  // A NaN stays NaN where it is dropped, as x * 0 does in torch.
  auto nan_in = torch::full({64}, std::nan(""));
  CHECK(torch::isnan(train_dropout(nan_in, 0.5, true)).all().item<bool>());
}

TEST_CASE("one row's dropout factors are the element masks of that row's tokens", "[model]") {
  // A padded [L, L] row of length 40 whose tokens sit at scattered columns: the
  // factor of token j is the element mask at row_base + columns[j], scale or 0.
  const DropoutMask mask = dropout_mask(0x5eedULL, 0.3);
  const float scale = 1.0f / 0.7f;
  std::vector<int64_t> columns;
  for (int64_t c = 0; c < 40; c += (c % 3) + 1) columns.push_back(c);
  const uint64_t row_base = 7 * 40 * 40 + 13 * 40;
  std::vector<float> keep(columns.size(), -1.0f);
  dropout_row_factors(mask, row_base, columns.data(), static_cast<int64_t>(columns.size()), scale, keep.data());
  int kept = 0;
  for (size_t j = 0; j < columns.size(); ++j) {
    const bool keeps = dropout_keeps(mask, row_base + uint64_t(columns[j]));
    INFO("token " << j << " at column " << columns[j]);
    CHECK(keep[j] == (keeps ? scale : 0.0f));
    kept += keeps;
  }
  // Not all one way, or the comparison above would not tell the two apart.
  CHECK(kept > 0);
  CHECK(kept < static_cast<int>(columns.size()));
}

TEST_CASE("dropout over some rows of a tensor gives those rows of the whole tensor's dropout", "[model]") {
  const auto rows = torch::tensor({0, 5, 6, 40}, torch::kLong);
  for (auto dtype : {torch::kFloat, torch::kBFloat16}) {
    INFO("dtype " << dtype);
    auto x = (torch::rand({41, 67}) + 0.5).to(dtype);  // odd width: rows start off any vector boundary
    torch::manual_seed(8);
    auto whole = drop(x, 0.1);
    torch::manual_seed(8);
    auto part = x.index_select(0, rows).detach().requires_grad_(true);
    auto out = train_dropout(part, 0.1, true, rows);
    (out * whole.weights.index_select(0, rows)).sum().backward();
    // The same mask and the same scale as torch's in that dtype, so the same bits.
    CHECK(torch::equal(out, whole.out.index_select(0, rows)));
    CHECK(torch::equal(part.grad(), whole.grad_in.index_select(0, rows)));
  }
}
