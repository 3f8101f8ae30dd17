#include "model/packed_rotary.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <c10/util/BFloat16.h>

namespace runner {
namespace {

// One token's row of the tables.
struct RotaryRow {
  const float *cos, *sin;  // [head_dim]
  int64_t head_dim;
};

// y = x * cos + rotate_half(x) * sin on one head's d values, where
// rotate_half(x) = [-x2, x1]: each product rounded, then the sum.
template <typename T>
void rotate_head(const RotaryRow& r, const T* x, T* y) {
  const int64_t half = r.head_dim / 2;
  for (int64_t i = 0; i < half; ++i) {
    const float x1 = static_cast<float>(x[i]), x2 = static_cast<float>(x[i + half]);
    const float lo_a = x1 * r.cos[i], lo_b = -x2 * r.sin[i];
    const float hi_a = x2 * r.cos[i + half], hi_b = x1 * r.sin[i + half];
    y[i] = T(lo_a + lo_b);
    y[i + half] = T(hi_a + hi_b);
  }
}

// The gradient of rotate_head: x1 gets dy1 * cos + dy2 * sin, x2 gets
// dy2 * cos - dy1 * sin, each product rounded, then the sum, as autograd
// accumulates the two paths.
template <typename T>
void rotate_head_backward(const RotaryRow& r, const T* dy, T* dx) {
  const int64_t half = r.head_dim / 2;
  for (int64_t i = 0; i < half; ++i) {
    const float lo = static_cast<float>(dy[i]), hi = static_cast<float>(dy[i + half]);
    const float x1_a = lo * r.cos[i], x1_b = hi * r.sin[i + half];
    const float x2_a = hi * r.cos[i + half], x2_b = -(lo * r.sin[i]);
    dx[i] = T(x1_a + x1_b);
    dx[i + half] = T(x2_a + x2_b);
  }
}

// Every token: q and k heads through `head`, v copied.
template <typename T, typename Head>
void each_token(const torch::Tensor& in, const torch::Tensor& cos, const torch::Tensor& sin, int64_t heads,
                torch::Tensor& out, const Head& head) {
  const int64_t tokens = in.size(0), width = in.size(1), d = cos.size(1), hidden = heads * d;
  const T* src = in.data_ptr<T>();
  T* dst = out.data_ptr<T>();
  const float *c = cos.data_ptr<float>(), *s = sin.data_ptr<float>();
  at::parallel_for(0, tokens, 16, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const RotaryRow row{c + t * d, s + t * d, d};
      const T* x = src + t * width;
      T* y = dst + t * width;
      for (int64_t h = 0; h < 2 * heads; ++h) head(row, x + h * d, y + h * d);
      std::copy(x + 2 * hidden, x + 3 * hidden, y + 2 * hidden);
    }
  });
}

template <typename Head32, typename Head16>
torch::Tensor apply_rows(const torch::Tensor& in, const torch::Tensor& cos, const torch::Tensor& sin, int64_t heads,
                         const Head32& f32, const Head16& bf16) {
  torch::Tensor out = torch::empty_like(in);
  if (in.scalar_type() == torch::kBFloat16)
    each_token<c10::BFloat16>(in, cos, sin, heads, out, bf16);
  else
    each_token<float>(in, cos, sin, heads, out, f32);
  return out;
}

class PackedRotaryFunction : public torch::autograd::Function<PackedRotaryFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& qkv,
                               const torch::Tensor& cos, const torch::Tensor& sin, int64_t heads) {
    // A custom function's forward is no dispatcher op: named here so that profiles count it.
    RECORD_FUNCTION("runner::packed_rotary", std::vector<c10::IValue>());
    ctx->save_for_backward({cos, sin});
    ctx->saved_data["heads"] = heads;
    return apply_rows(qkv.contiguous(), cos, sin, heads, rotate_head<float>, rotate_head<c10::BFloat16>);
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor grad = grads[0].contiguous();
    return {apply_rows(grad, saved[0], saved[1], ctx->saved_data["heads"].toInt(), rotate_head_backward<float>,
                       rotate_head_backward<c10::BFloat16>),
            torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

// Off the CPU: the op sequence the pass replaces, on [T, heads, d] views.
torch::Tensor rotary_ops(const torch::Tensor& qkv, const torch::Tensor& cos, const torch::Tensor& sin,
                         int64_t heads) {
  const int64_t tokens = qkv.size(0), d = cos.size(1);
  const auto parts = qkv.view({tokens, 3, heads, d}).unbind(1);
  const auto c = cos.to(torch::kFloat).unsqueeze(1), s = sin.to(torch::kFloat).unsqueeze(1);
  auto rotate = [&](const torch::Tensor& x) {
    const auto f = x.to(torch::kFloat);
    const auto halves = f.chunk(2, -1);
    return (f * c + torch::cat({-halves[1], halves[0]}, -1) * s).to(x.scalar_type());
  };
  return torch::stack({rotate(parts[0]), rotate(parts[1]), parts[2]}, 1).view({tokens, 3 * heads * d});
}

}  // namespace

torch::Tensor packed_rotary(const torch::Tensor& qkv, const torch::Tensor& cos, const torch::Tensor& sin,
                            int64_t heads) {
  TORCH_CHECK(qkv.dim() == 2 && cos.dim() == 2 && cos.size(1) % 2 == 0 &&
                  qkv.size(1) == 3 * heads * cos.size(1) && cos.size(0) == qkv.size(0),
              "packed_rotary: qkv [T, 3 * heads * d] with [T, d] tables");
  if (!qkv.device().is_cpu()) return rotary_ops(qkv, cos, sin, heads);
  return PackedRotaryFunction::apply(qkv, cos.to(torch::kFloat).contiguous(), sin.to(torch::kFloat).contiguous(),
                                     heads);
}

}  // namespace runner
