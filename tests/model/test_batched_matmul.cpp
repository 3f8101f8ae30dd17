// batched_matmul spreads attention's products over the threads; it must give
// torch::matmul's values and gradients exactly (the same GEMM per entry).
#include "model/batched_matmul.h"

#include "catch.h"

using namespace runner;

TEST_CASE("batched_matmul equals torch::matmul, forward and backward, on two threads", "[model]") {
  const int before = at::get_num_threads();
  at::set_num_threads(2);
  torch::manual_seed(3);
  // q [batch 5, heads 3, 37 x 16] times k^T as attention passes it (a transposed view):
  // an odd entry count that splits unevenly over the threads.
  auto a = torch::randn({5, 3, 37, 16}, torch::requires_grad());
  auto b = torch::randn({5, 3, 29, 16}, torch::requires_grad());
  auto a2 = a.detach().clone().requires_grad_(true), b2 = b.detach().clone().requires_grad_(true);
  auto weights = torch::randn({5, 3, 37, 29});
  auto ours = batched_matmul(a, b.transpose(-1, -2));
  auto theirs = torch::matmul(a2, b2.transpose(-1, -2));
  CHECK(torch::equal(ours, theirs));
  (ours * weights).sum().backward();
  (theirs * weights).sum().backward();
  CHECK(torch::equal(a.grad(), a2.grad()));
  CHECK(torch::equal(b.grad(), b2.grad()));
  at::set_num_threads(before);
}

// Edge layouts for the direct BLAS path: a one-row matrix (its transpose has a
// stride BLAS must not take as the leading dimension), an operand that is
// neither row- nor column-major (every other column), and products under 400
// multiply-adds, which LibTorch computes without BLAS. (A LibTorch with MKL
// takes torch::matmul itself: batched_matmul.cpp says why.)
TEST_CASE("batched_matmul equals torch::matmul on one-row, strided and tiny operands", "[model]") {
  const int before = at::get_num_threads();
  at::set_num_threads(2);
  torch::manual_seed(4);
  struct Shapes { int64_t m, k, n; };
  for (const auto s : {Shapes{1, 70, 9}, Shapes{23, 1, 40}, Shapes{6, 5, 7}, Shapes{31, 33, 1}}) {
    // torch::matmul gets the same strided view (of a copy): LibTorch 2.x with MKL
    // picks its GEMM by layout (one batched call when every entry is contiguous, a
    // GEMM per entry otherwise), and the two round an n = 1 product differently, so
    // a contiguous clone would test torch against itself on another path.
    const auto base = torch::randn({3, 2, s.m, 2 * s.k});
    auto a = base.clone().slice(-1, 0, 2 * s.k, 2).requires_grad_(true);
    auto a2 = base.clone().slice(-1, 0, 2 * s.k, 2).requires_grad_(true);
    auto b = torch::randn({3, 2, s.n, s.k}, torch::requires_grad());
    auto b2 = b.detach().clone().requires_grad_(true);
    auto ours = batched_matmul(a, b.transpose(-1, -2));
    auto theirs = torch::matmul(a2, b2.transpose(-1, -2));
    INFO("m " << s.m << " k " << s.k << " n " << s.n);
    CHECK(torch::equal(ours, theirs));
    auto weights = torch::randn_like(theirs);
    (ours * weights).sum().backward();
    (theirs * weights).sum().backward();
    CHECK(torch::equal(a.grad(), a2.grad()));
    CHECK(torch::equal(b.grad(), b2.grad()));
  }
  at::set_num_threads(before);
}
