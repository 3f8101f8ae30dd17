// The Linear product through oneDNN (model/dense.h) against the exact values
// in float64 and against torch::linear: the output and the gradients of the
// input, the weight and the bias, with and without a bias, on 2-D and 3-D
// inputs; and torch::linear itself where oneDNN does not apply.
#include "model/dense.h"
#include "attention_exact.h"
#include "golden.h"

#include "catch.h"

using namespace runner;
using namespace runner::test;

namespace {

struct Linear {
  torch::Tensor y, dx, dw, db;  // float64
};

Linear run(bool through_dense, const torch::Tensor& x_in, const torch::Tensor& w_in, const torch::Tensor& b_in,
           const torch::Tensor& upstream) {
  auto x = x_in.clone().requires_grad_(true), w = w_in.clone().requires_grad_(true);
  auto b = b_in.defined() ? b_in.clone().requires_grad_(true) : torch::Tensor();
  auto y = through_dense ? dense(x, w, b) : torch::linear(x, w, b);
  (y.to(torch::kDouble) * upstream).sum().backward();
  auto grad = [](const torch::Tensor& t) {
    if (!t.defined()) return torch::Tensor();
    return t.grad().defined() ? t.grad().to(torch::kDouble) : torch::zeros_like(t, torch::kDouble);
  };
  return {y.detach().to(torch::kDouble), grad(x), grad(w), grad(b)};
}

// A k-term sum of products rounded in fp32 lies within k u of its absolute
// twin (the same sum of |terms|) of the exact value, whatever the order of the
// sums; the bias adds one more rounding. y sums `in` terms, dx `out`, dw and
// db the rows.
void check(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& b) {
  const int64_t in = w.size(1), out = w.size(0), rows = x.numel() / in;
  torch::manual_seed(5);
  std::vector<int64_t> shape = x.sizes().vec();
  shape.back() = out;
  auto upstream = torch::randn(shape, torch::kDouble);
  const Linear got = run(true, x, w, b, upstream), aten = run(false, x, w, b, upstream);
  auto xd = x.to(torch::kDouble).reshape({-1, in}), wd = w.to(torch::kDouble), g = upstream.reshape({-1, out});
  auto y = torch::mm(xd, wd.t()) + (b.defined() ? b.to(torch::kDouble) : torch::zeros({out}, torch::kDouble));
  auto y_twin = torch::mm(xd.abs(), wd.abs().t()) + (b.defined() ? b.to(torch::kDouble).abs() : torch::zeros({out}, torch::kDouble));
  CHECK(got.y.sizes() == aten.y.sizes());
  CHECK(got.dx.sizes() == aten.dx.sizes());
  CHECK(b.defined() == got.db.defined());
  if (rows == 0) {  // no term: the weight's and the bias's gradients are zero
    CHECK(got.dw.eq(0).all().item<bool>());
    if (b.defined()) CHECK(got.db.eq(0).all().item<bool>());
    return;
  }
  const double u = kFloatUnit;
  for (const Linear* r : {&got, &aten}) {
    CHECK(excess(r->y.reshape({-1, out}), y, y_twin, (in + 1) * u) <= 0);
    CHECK(excess(r->dx.reshape({-1, in}), torch::mm(g, wd), torch::mm(g.abs(), wd.abs()), out * u) <= 0);
    CHECK(excess(r->dw, torch::mm(g.t(), xd), torch::mm(g.abs().t(), xd.abs()), rows * u) <= 0);
    if (b.defined()) CHECK(excess(r->db, g.sum(0), g.abs().sum(0), rows * u) <= 0);
  }
}

}  // namespace

TEST_CASE("dense equals the exact product and its gradients, as torch::linear does", "[model]") {
  torch::manual_seed(3);
  auto w = torch::randn({48, 40}) * 0.2, b = torch::randn({48});
  INFO("oneDNN in the process: " << dense_on_onednn(torch::zeros({1, 40}), w));
  check(torch::randn({37, 40}), w, b);
  check(torch::randn({37, 40}), w, torch::Tensor());
  check(torch::randn({3, 11, 40}), w, b);  // [B, L, in], as the padded paths call it
  check(torch::randn({0, 40}), w, b);      // a batch with no token left
}

TEST_CASE("dense is torch::linear under bf16 autocast and in other dtypes", "[model]") {
  torch::manual_seed(3);
  auto x = torch::randn({9, 16}), w = torch::randn({8, 16}), b = torch::randn({8});
  {
    Bf16Autocast autocast(false);
    CHECK_FALSE(dense_on_onednn(x, w));
    auto ours = dense(x, w, b), aten = torch::linear(x, w, b);
    CHECK(ours.scalar_type() == torch::kBFloat16);
    CHECK(torch::equal(ours, aten));
  }
  CHECK_FALSE(dense_on_onednn(x.to(torch::kDouble), w.to(torch::kDouble)));
  CHECK(torch::equal(dense(x.to(torch::kDouble), w.to(torch::kDouble), b.to(torch::kDouble)),
                     torch::linear(x.to(torch::kDouble), w.to(torch::kDouble), b.to(torch::kDouble))));
  CHECK_FALSE(dense_on_onednn(torch::randn({9, 15}), w));  // the shapes' own error comes from torch::linear
}
