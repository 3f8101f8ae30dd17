#include "model/batched_matmul.h"
#include "model/blas_gemm.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/autocast_mode.h>
#include <ATen/ThreadLocalState.h>
#include <ATen/record_function.h>
#include <torch/version.h>

#include <algorithm>
#include <climits>

namespace runner {
namespace {

// One operand's matrices as BLAS sees them: row-major [rows, cols] is a
// column-major [cols, rows], so a contiguous matrix is passed as "N" with its
// row stride, and the transposed view of a contiguous one as "T".
struct BlasOperand {
  const float* data;
  int64_t batch_stride;
  char trans;
  int ld;
};

bool row_major(const torch::Tensor& x) {
  return x.stride(2) == 1 && x.stride(1) >= std::max<int64_t>(1, x.size(2));
}

bool column_major(const torch::Tensor& x) {
  return x.stride(1) == 1 && x.stride(2) >= std::max<int64_t>(1, x.size(1));
}

// A [N, M, K] operand BLAS can take as it is: each matrix row-major or the
// transpose of a row-major one (attention's k^T and backward's transposes).
torch::Tensor blas_ready(const torch::Tensor& x) {
  return row_major(x) || column_major(x) ? x : x.contiguous();
}

BlasOperand blas_operand(const torch::Tensor& x) {
  const bool rows = row_major(x);
  return {x.data_ptr<float>(), x.stride(0), rows ? 'N' : 'T',
          static_cast<int>(rows ? x.stride(1) : x.stride(2))};
}

// out[i] = a[i] b[i] for i in [begin, end): one BLAS call per entry, no
// per-entry tensors. LibTorch's own loop (bmm without MKL) makes three
// select views and an addmm per entry, whose bookkeeping took as long as the
// arithmetic on BERT-Mini's 64-wide heads (bench/step --profile: select).
void sgemm_entries(Sgemm sgemm, const BlasOperand& a, const BlasOperand& b, float* out,
                   int m, int n, int k, int64_t begin, int64_t end) {
  const float one = 1.0f, zero = 0.0f;
  const int ldc = n;
  for (int64_t i = begin; i < end; ++i) {
    // Row-major out = a b is column-major out^T = b^T a^T.
    sgemm(&b.trans, &a.trans, &n, &m, &k, &one, b.data + i * b.batch_stride, &b.ld,
          a.data + i * a.batch_stride, &a.ld, &zero, out + i * int64_t(m) * n, &ldc);
  }
}

bool fits_blas(const torch::Tensor& a, const torch::Tensor& b) {
  const int64_t m = a.size(1), k = a.size(2), n = b.size(2);
  // LibTorch computes products under 400 multiply-adds without BLAS; keep
  // those on its path so results stay equal to torch::matmul's.
  return a.scalar_type() == torch::kFloat && b.scalar_type() == torch::kFloat &&
         process_sgemm() != nullptr && m > 0 && n > 0 && k > 0 && m * n * k >= 400 &&
         std::max({m, n, k, a.stride(1), a.stride(2), b.stride(1), b.stride(2)}) < INT_MAX;
}

// a [N, M, K] x b [N, K, P] -> [N, M, P]. Inside at::parallel_for, the
// OpenMP build of OpenBLAS sees a parallel region and runs each GEMM on one thread.
torch::Tensor bmm_over_threads(const torch::Tensor& a_in, const torch::Tensor& b_in) {
  auto out = torch::empty({a_in.size(0), a_in.size(1), b_in.size(2)}, a_in.options());
  if (!fits_blas(a_in, b_in)) {
    // LibTorch ops on a worker thread see that thread's own grad mode and
    // dispatch state; they get the caller's (inside autograd: no grad).
    const at::ThreadLocalState caller;
    at::parallel_for(0, a_in.size(0), 1, [&](int64_t begin, int64_t end) {
      const at::ThreadLocalStateGuard same_state(caller);
      torch::Tensor slice = out.narrow(0, begin, end - begin);
      at::bmm_out(slice, a_in.narrow(0, begin, end - begin), b_in.narrow(0, begin, end - begin));
    });
    return out;
  }
  const torch::Tensor a = blas_ready(a_in), b = blas_ready(b_in);
  const BlasOperand blas_a = blas_operand(a), blas_b = blas_operand(b);
  const int m = a.size(1), k = a.size(2), n = b.size(2);
  float* result = out.data_ptr<float>();
  at::parallel_for(0, a.size(0), 1, [&](int64_t begin, int64_t end) {
    sgemm_entries(process_sgemm(), blas_a, blas_b, result, m, n, k, begin, end);
  });
  return out;
}

class ThreadedBmm : public torch::autograd::Function<ThreadedBmm> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& a,
                               const torch::Tensor& b) {
    // A custom function's forward is no dispatcher op: named here so that profiles count it.
    RECORD_FUNCTION("runner::threaded_bmm", std::vector<c10::IValue>());
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
// LibTorch 2.4 deprecated the CPU-only autocast getters for ones taking the device.
torch::ScalarType product_dtype(const torch::Tensor& a) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  if (at::autocast::is_autocast_enabled(at::kCPU)) return at::autocast::get_autocast_dtype(at::kCPU);
#else
  if (at::autocast::is_cpu_enabled()) return at::autocast::get_autocast_cpu_dtype();
#endif
  return a.scalar_type();
}

// With MKL, bmm is one call of MKL's batched GEMM, which rounds a product with
// a side of 1 otherwise than MKL's sgemm_ called per entry (torch 2.11: six
// 31x33 times 33x1 products differ by up to 2e-6, as torch::mm's do), so a
// per-entry loop cannot give bmm's numbers; MKL spreads the batch over threads.
bool torch_bmm_is_batched() { return at::hasMKL(); }

}  // namespace

torch::Tensor batched_matmul(const torch::Tensor& a, const torch::Tensor& b) {
  if (!a.device().is_cpu() || at::get_num_threads() == 1 || torch_bmm_is_batched())
    return torch::matmul(a, b);
  auto shape = a.sizes().slice(0, a.dim() - 2).vec();
  shape.push_back(a.size(-2));
  shape.push_back(b.size(-1));
  const auto dtype = product_dtype(a);
  auto a3 = a.to(dtype).reshape({-1, a.size(-2), a.size(-1)});
  auto b3 = b.to(dtype).reshape({-1, b.size(-2), b.size(-1)});
  return ThreadedBmm::apply(a3, b3).view(shape);
}

}  // namespace runner
