#include "model/dense.h"

#include "model/autocast_state.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <dlfcn.h>

namespace runner {
namespace {

// oneDNN's C API: row-major C = alpha op(A) op(B) + beta C; 0 on success.
using OnednnSgemm = int (*)(char transa, char transb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                            int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc);

OnednnSgemm process_onednn_sgemm() {
  static const auto sgemm = reinterpret_cast<OnednnSgemm>(dlsym(RTLD_DEFAULT, "dnnl_sgemm"));
  return sgemm;
}

void onednn_gemm(char trans_a, char trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                 const float* b, int64_t ldb, float beta, float* c, int64_t ldc, float alpha = 1.0f) {
  const int status = process_onednn_sgemm()(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  TORCH_CHECK(status == 0, "oneDNN sgemm failed with status ", status);
}

// Each row of y [rows, out] set to the bias, as aten::addmm starts from it.
void fill_rows(const torch::Tensor& bias, torch::Tensor& y) {
  const int64_t rows = y.size(0), out = y.size(1);
  const float* b = bias.data_ptr<float>();
  float* dst = y.data_ptr<float>();
  at::parallel_for(0, rows, 64, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) std::copy(b, b + out, dst + r * out);
  });
}

class DenseFunction : public torch::autograd::Function<DenseFunction> {
 public:
  // bias: [out], or [0] for none (a custom function takes no undefined input).
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x_in,
                               const torch::Tensor& weight_in, const torch::Tensor& bias) {
    RECORD_FUNCTION("runner::dense", std::vector<c10::IValue>());
    const int64_t in = weight_in.size(1), out = weight_in.size(0);
    const torch::Tensor x = x_in.reshape({-1, in}).contiguous(), weight = weight_in.contiguous();
    const int64_t rows = x.size(0);
    torch::Tensor y = torch::empty({rows, out}, x.options());
    const bool with_bias = bias.numel() > 0;
    if (with_bias) fill_rows(bias.contiguous(), y);
    if (rows > 0)
      onednn_gemm('N', 'T', rows, out, in, x.data_ptr<float>(), in, weight.data_ptr<float>(), in,
                  with_bias ? 1.0f : 0.0f, y.data_ptr<float>(), out);
    ctx->save_for_backward({x, weight});
    ctx->saved_data["with_bias"] = with_bias;
    // y itself when it has its shape: a view made here could not be written in place (dense_accumulate).
    if (x_in.dim() == 2) return y;
    std::vector<int64_t> shape = x_in.sizes().vec();
    shape.back() = out;
    return y.view(shape);
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &x = saved[0], &weight = saved[1];
    const int64_t in = weight.size(1), out = weight.size(0), rows = x.size(0);
    const torch::Tensor dy = grads[0].reshape({-1, out}).contiguous();
    torch::Tensor dx, dweight, dbias;
    if (ctx->needs_input_grad(0)) {
      dx = torch::empty({rows, in}, dy.options());
      if (rows > 0)
        onednn_gemm('N', 'N', rows, in, out, dy.data_ptr<float>(), out, weight.data_ptr<float>(), in, 0.0f,
                    dx.data_ptr<float>(), in);
      std::vector<int64_t> shape = grads[0].sizes().vec();
      shape.back() = in;
      dx = dx.view(shape);
    }
    if (ctx->needs_input_grad(1)) dweight = torch::mm(dy.t(), x);
    if (ctx->needs_input_grad(2) && ctx->saved_data["with_bias"].toBool()) dbias = dy.sum(0);
    return {dx, dweight, dbias};
  }
};

// y[:, column : column + out] += alpha x W^T; y is marked dirty and returned.
class AccumulateFunction : public torch::autograd::Function<AccumulateFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, torch::Tensor y, const torch::Tensor& x_in,
                               const torch::Tensor& weight_in, int64_t column, double alpha) {
    RECORD_FUNCTION("runner::dense_accumulate", std::vector<c10::IValue>());
    const torch::Tensor x = x_in.contiguous(), weight = weight_in.contiguous();
    const int64_t rows = x.size(0), in = x.size(1), out = weight.size(0), width = y.size(1);
    if (rows > 0)
      onednn_gemm('N', 'T', rows, out, in, x.data_ptr<float>(), in, weight.data_ptr<float>(), in, 1.0f,
                  y.data_ptr<float>() + column, width, static_cast<float>(alpha));
    ctx->mark_dirty({y});
    ctx->save_for_backward({x, weight});
    ctx->saved_data["column"] = column;
    ctx->saved_data["alpha"] = alpha;
    return y;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &x = saved[0], &weight = saved[1];
    const int64_t column = ctx->saved_data["column"].toInt();
    const auto alpha = static_cast<float>(ctx->saved_data["alpha"].toDouble());
    const torch::Tensor dy = grads[0].contiguous();
    const int64_t rows = x.size(0), in = x.size(1), out = weight.size(0), width = dy.size(1);
    const float* dy_part = dy.data_ptr<float>() + column;  // [rows, out], leading dimension width
    torch::Tensor dx, dweight;
    if (ctx->needs_input_grad(1)) {
      dx = torch::empty({rows, in}, dy.options());
      if (rows > 0)
        onednn_gemm('N', 'N', rows, in, out, dy_part, width, weight.data_ptr<float>(), in, 0.0f, dx.data_ptr<float>(),
                    in, alpha);
    }
    if (ctx->needs_input_grad(2)) {
      dweight = torch::empty({out, in}, dy.options());
      if (rows > 0)
        onednn_gemm('T', 'N', out, in, rows, dy_part, width, x.data_ptr<float>(), in, 0.0f,
                    dweight.data_ptr<float>(), in, alpha);
    }
    return {dy, dx, dweight, torch::Tensor(), torch::Tensor()};
  }
};

}  // namespace

bool dense_accumulate_applies(const torch::Tensor& y, const torch::Tensor& x, const torch::Tensor& weight) {
  return dense_on_onednn(x, weight) && x.dim() == 2 && y.dim() == 2 && y.scalar_type() == torch::kFloat &&
         y.is_contiguous() && y.size(0) == x.size(0) && !y.is_view();
}

torch::Tensor dense_accumulate(torch::Tensor y, int64_t column, const torch::Tensor& x, const torch::Tensor& weight,
                               double alpha) {
  TORCH_CHECK(column >= 0 && column + weight.size(0) <= y.size(1), "dense_accumulate: columns past the output");
  return AccumulateFunction::apply(std::move(y), x, weight, column, alpha);
}

bool dense_on_onednn(const torch::Tensor& x, const torch::Tensor& weight) {
  return process_onednn_sgemm() != nullptr && x.device().is_cpu() && weight.device().is_cpu() &&
         x.scalar_type() == torch::kFloat && weight.scalar_type() == torch::kFloat &&
         !autocast_enabled(c10::DeviceType::CPU) && weight.dim() == 2 && x.dim() >= 1 &&
         x.size(-1) == weight.size(1);
}

torch::Tensor dense(const torch::Tensor& x, const torch::Tensor& weight, const torch::Tensor& bias) {
  if (!dense_on_onednn(x, weight) || (bias.defined() && bias.scalar_type() != torch::kFloat))
    return torch::linear(x, weight, bias);
  return DenseFunction::apply(x, weight, bias.defined() ? bias : torch::empty({0}, weight.options()));
}

}  // namespace runner
