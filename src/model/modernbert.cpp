#include "model/modernbert.h"

#include "model/encoder_ops.h"
#include "model/lora.h"
#include "model/packed_rotary.h"

#include <cmath>

namespace runner {
namespace {

torch::nn::Linear projection(int64_t in, int64_t out, bool bias) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(bias));
}

torch::Tensor project(const torch::nn::Linear& l, const torch::Tensor& x) {
  return linear_forward(l, x);
}

torch::Tensor rotate_half(const torch::Tensor& x) {
  const int64_t half = x.size(-1) / 2;
  return torch::cat({-x.slice(-1, half), x.slice(-1, 0, half)}, -1);
}

}  // namespace

OptionalBiasNorm::OptionalBiasNorm(int64_t width, double eps_, bool with_bias) : eps(eps_) {
  weight = register_parameter("weight", torch::ones({width}));
  if (with_bias) bias = register_parameter("bias", torch::zeros({width}));
}

// In the weights' precision, as autocast runs layer_norm: LibTorch 1.13's CPU
// autocast leaves it out and would refuse a bf16 input with fp32 weights.
torch::Tensor OptionalBiasNorm::forward(const torch::Tensor& x) {
  return torch::layer_norm(x.to(weight.scalar_type()), {weight.size(0)}, weight, bias, eps);
}

std::pair<torch::Tensor, torch::Tensor> rotary_tables(int64_t length, int64_t head_dim, double theta,
                                                      const torch::Device& device) {
  // transformers' default RoPE, in float32: inv_freq = 1 / theta^(2i / d).
  auto options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  auto exponents = torch::arange(0, head_dim, 2, torch::TensorOptions().dtype(torch::kInt64).device(device))
                       .to(torch::kFloat32) / static_cast<double>(head_dim);
  auto inv_freq = 1.0 / torch::pow(torch::tensor(static_cast<float>(theta), options), exponents);
  auto freqs = torch::arange(length, options).unsqueeze(1) * inv_freq.unsqueeze(0);
  auto angles = torch::cat({freqs, freqs}, -1);
  return {angles.cos(), angles.sin()};
}

ModernBertLayer::ModernBertLayer(const ModernBertConfig& c, bool first) : config_(c) {
  const int64_t h = c.hidden_size;
  if (!first) attn_norm_ = register_module("attn_norm", std::make_shared<OptionalBiasNorm>(h, c.norm_eps, c.norm_bias));
  auto attn = register_module("attn", std::make_shared<torch::nn::Module>("ModernBertAttention"));
  wqkv_ = attn->register_module("Wqkv", projection(h, 3 * h, c.attention_bias));
  attn_out_ = attn->register_module("Wo", projection(h, h, c.attention_bias));
  mlp_norm_ = register_module("mlp_norm", std::make_shared<OptionalBiasNorm>(h, c.norm_eps, c.norm_bias));
  auto mlp = register_module("mlp", std::make_shared<torch::nn::Module>("ModernBertMLP"));
  wi_ = mlp->register_module("Wi", projection(h, 2 * c.intermediate_size, c.mlp_bias));
  mlp_out_ = mlp->register_module("Wo", projection(c.intermediate_size, h, c.mlp_bias));
}

torch::Tensor ModernBertLayer::attend(const torch::Tensor& x, const ModernBertAttentionInputs& a) {
  if (a.sequences) return attend_unpadded(x, a);
  const torch::Tensor &mask = a.mask, &cos = a.cos, &sin = a.sin;
  const int64_t b = x.size(0), l = x.size(1), heads = config_.num_attention_heads, d = config_.head_dim();
  auto qkv = project(wqkv_, x).view({b, l, 3, heads, d});
  auto q = qkv.select(2, 0).transpose(1, 2), k = qkv.select(2, 1).transpose(1, 2), v = qkv.select(2, 2).transpose(1, 2);
  const auto dtype = q.scalar_type();
  q = (q.to(torch::kFloat32) * cos + rotate_half(q.to(torch::kFloat32)) * sin).to(dtype);
  k = (k.to(torch::kFloat32) * cos + rotate_half(k.to(torch::kFloat32)) * sin).to(dtype);
  auto scores = torch::matmul(q, k.transpose(2, 3)) * std::pow(static_cast<double>(d), -0.5) + mask;
  auto probs = train_dropout(torch::softmax(scores, -1, torch::kFloat32).to(dtype), config_.attention_dropout,
                             is_training());
  auto context = torch::matmul(probs, v).transpose(1, 2).contiguous().view({b, l, heads * d});
  return train_dropout(project(attn_out_, context), config_.attention_dropout, is_training());
}

// The same on the packed tokens: the rotary angles of each token's column (one
// fused pass over q, k and v), then attention sequence by sequence within the
// layer's window.
torch::Tensor ModernBertLayer::attend_unpadded(const torch::Tensor& x, const ModernBertAttentionInputs& a) {
  const int64_t heads = config_.num_attention_heads;
  auto rotated = packed_rotary(project(wqkv_, x), a.cos, a.sin, heads);
  const PackedAttentionSpec spec{heads, ScoreScaling::TimesInverseRoot, config_.attention_dropout, is_training(),
                                 a.window};
  auto context = packed_attention(rotated, *a.sequences, spec);
  return train_dropout(project(attn_out_, context), config_.attention_dropout, is_training());
}

torch::Tensor ModernBertLayer::forward(const torch::Tensor& hidden, const ModernBertAttentionInputs& a) {
  auto h = hidden + attend(attn_norm_ ? attn_norm_->forward(hidden) : hidden, a);
  auto gated = project(wi_, mlp_norm_->forward(h)).chunk(2, -1);
  // LibTorch's CPU activations run 5-7x slower on a strided half than on a
  // copy of it (scalar loop against vectorised; the copy costs a tenth of that).
  auto input = gated[0].is_cpu() ? gated[0].contiguous() : gated[0];
  auto inner = train_dropout(hf_activation(config_.hidden_activation, input) * gated[1], config_.mlp_dropout,
                             is_training());
  return h + project(mlp_out_, inner);
}

}  // namespace runner
