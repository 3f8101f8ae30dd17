// nn.Dropout for training, with the mask from dropout_kernel on the CPU (float
// and bf16) and torch::dropout elsewhere.
#include "model/dropout_kernel.h"
#include "model/encoder_ops.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/record_function.h>

#include <mutex>
#include <numeric>
#include <vector>

namespace runner {
namespace {

// 1 / (1 - p) as torch's noise holds it: in the tensor's dtype, so bf16 rounds it.
float noise_scale(torch::ScalarType dtype, double p) {
  const float scale = 1.0f / static_cast<float>(1.0 - p);
  return dtype == torch::kBFloat16 ? static_cast<float>(c10::BFloat16(scale)) : scale;
}

// noise = bernoulli(1 - p) / (1 - p) as torch computes it in the tensor's dtype.
torch::Tensor masked_scale(const torch::Tensor& x, const DropoutMask& mask, double p) {
  torch::Tensor in = x.contiguous(), out = torch::empty_like(in);
  const float scale = noise_scale(in.scalar_type(), p);
  if (in.scalar_type() == torch::kFloat)
    dropout_apply(in.data_ptr<float>(), out.data_ptr<float>(), in.numel(), mask, scale);
  else
    dropout_apply(in.data_ptr<c10::BFloat16>(), out.data_ptr<c10::BFloat16>(), in.numel(), mask,
                  c10::BFloat16(scale));
  return out;
}

// The same for x [R, W] holding rows `rows` of a larger [*, W] tensor: each
// element draws the mask of its place there, row by row.
torch::Tensor masked_scale_rows(const torch::Tensor& x, const DropoutMask& mask, double p, const torch::Tensor& rows) {
  torch::Tensor in = x.contiguous(), out = torch::empty_like(in);
  const int64_t width = in.size(-1), count = in.numel() / width;
  const float scale = noise_scale(in.scalar_type(), p);
  std::vector<int64_t> columns(width);
  std::iota(columns.begin(), columns.end(), int64_t(0));
  std::vector<float> keep(width);
  const torch::Tensor where = rows.to(torch::kCPU, torch::kLong).contiguous();
  for (int64_t r = 0; r < count; ++r) {
    const uint64_t base = uint64_t(where.data_ptr<int64_t>()[r]) * uint64_t(width);
    dropout_row_factors(mask, base, columns.data(), width, scale, keep.data());
    if (in.scalar_type() == torch::kFloat) {
      const float* from = in.data_ptr<float>() + r * width;
      float* to = out.data_ptr<float>() + r * width;
      for (int64_t c = 0; c < width; ++c) to[c] = from[c] * keep[c];
    } else {  // bf16 as dropout_apply rounds it: the float product to nearest even
      const c10::BFloat16* from = in.data_ptr<c10::BFloat16>() + r * width;
      c10::BFloat16* to = out.data_ptr<c10::BFloat16>() + r * width;
      for (int64_t c = 0; c < width; ++c) to[c] = c10::BFloat16(static_cast<float>(from[c]) * keep[c]);
    }
  }
  return out;
}

// `rows` undefined: x is the whole tensor the mask indexes.
torch::Tensor masked_scale_at(const torch::Tensor& x, const DropoutMask& mask, double p, const torch::Tensor& rows) {
  return rows.defined() ? masked_scale_rows(x, mask, p, rows) : masked_scale(x, mask, p);
}

// The rows a dropout's input holds, wrapped: a Tensor argument of a custom
// function is taken for a differentiable input, and an undefined one refused.
struct RowsOf {
  torch::Tensor rows;  // undefined: the input is the whole tensor
};

class CounterDropout : public torch::autograd::Function<CounterDropout> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               double p, RowsOf where) {
    const torch::Tensor& rows = where.rows;
    // A custom function's forward is no dispatcher op: named here so that profiles count it.
    RECORD_FUNCTION("runner::counter_dropout", std::vector<c10::IValue>());
    const DropoutMask mask = dropout_mask(draw_dropout_seed(), p);
    ctx->saved_data["seed"] = static_cast<int64_t>(mask.seed);
    ctx->saved_data["p"] = p;
    ctx->saved_data["rows"] = rows;
    return masked_scale_at(x, mask, p, rows);
  }

  // The same mask, recomputed from the seed: d(x * noise)/dx = noise.
  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const double p = ctx->saved_data["p"].toDouble();
    const DropoutMask mask =
        dropout_mask(static_cast<uint64_t>(ctx->saved_data["seed"].toInt()), p);
    return {masked_scale_at(grads[0], mask, p, ctx->saved_data["rows"].toTensor()), torch::Tensor(),
            torch::Tensor()};
  }
};

bool counter_dropout_applies(const torch::Tensor& x, double p) {
  const auto dtype = x.scalar_type();
  return x.device().is_cpu() && p < 1.0 && (dtype == torch::kFloat || dtype == torch::kBFloat16);
}

}  // namespace

// One draw from the default CPU generator per dropout call: the run's seed and
// a checkpoint's saved generator state decide every mask, as they did when
// bernoulli_ drew from it.
uint64_t draw_dropout_seed() {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return at::check_generator<at::CPUGeneratorImpl>(gen)->random64();
}

torch::Tensor train_dropout(const torch::Tensor& x, double p, bool training, const torch::Tensor& rows) {
  if (p <= 0.0 || !training) return x;
  return counter_dropout_applies(x, p) ? CounterDropout::apply(x, p, RowsOf{rows}) : torch::dropout(x, p, true);
}

}  // namespace runner
