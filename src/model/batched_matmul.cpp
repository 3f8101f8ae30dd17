#include "model/batched_matmul.h"

#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>

namespace runner {
namespace {

// a [N, M, K] x b [N, K, P] -> [N, M, P]. Inside at::parallel_for, the
// OpenMP build of OpenBLAS sees a parallel region and runs each GEMM on one thread.
torch::Tensor bmm_over_threads(const torch::Tensor& a, const torch::Tensor& b) {
  auto out = torch::empty({a.size(0), a.size(1), b.size(2)}, a.options());
  at::parallel_for(0, a.size(0), 1, [&](int64_t begin, int64_t end) {
    const int64_t n = end - begin;
    torch::Tensor slice = out.narrow(0, begin, n);
    at::bmm_out(slice, a.narrow(0, begin, n), b.narrow(0, begin, n));
  });
  return out;
}

class ThreadedBmm : public torch::autograd::Function<ThreadedBmm> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& a,
                               const torch::Tensor& b) {
    ctx->save_for_backward({a, b});
    return bmm_over_threads(a, b);
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    auto saved = ctx->get_saved_variables();
    const torch::Tensor &a = saved[0], &b = saved[1], g = grads[0].contiguous();
    torch::Tensor grad_a, grad_b;
    if (ctx->needs_input_grad(0)) grad_a = bmm_over_threads(g, b.transpose(1, 2));
    if (ctx->needs_input_grad(1)) grad_b = bmm_over_threads(a.transpose(1, 2), g);
    return {grad_a, grad_b};
  }
};

// The dtype autocast gives bmm (CPU: its lower-precision dtype), else the inputs'.
// bmm_out itself is not an autocast op, so the cast is made here.
torch::ScalarType product_dtype(const torch::Tensor& a) {
  if (at::autocast::is_cpu_enabled()) return at::autocast::get_autocast_cpu_dtype();
  return a.scalar_type();
}

}  // namespace

torch::Tensor batched_matmul(const torch::Tensor& a, const torch::Tensor& b) {
  if (!a.device().is_cpu() || at::get_num_threads() == 1) return torch::matmul(a, b);
  auto shape = a.sizes().slice(0, a.dim() - 2).vec();
  shape.push_back(a.size(-2));
  shape.push_back(b.size(-1));
  const auto dtype = product_dtype(a);
  auto a3 = a.to(dtype).reshape({-1, a.size(-2), a.size(-1)});
  auto b3 = b.to(dtype).reshape({-1, b.size(-2), b.size(-1)});
  return ThreadedBmm::apply(a3, b3).view(shape);
}

}  // namespace runner
