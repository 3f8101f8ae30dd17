// batched_matmul spreads attention's products over the threads; it must give
// torch::matmul's values and gradients exactly (the same GEMM per entry).
#include "model/batched_matmul.h"

#include <catch2/catch.hpp>

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
