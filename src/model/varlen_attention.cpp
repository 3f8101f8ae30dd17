#include "model/varlen_attention.h"

#ifdef RUNNER_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

#include <cmath>
#include <stdexcept>

namespace runner {
namespace {

#ifdef RUNNER_WITH_CUDA
// Both kernels load a head's columns in 8-element vectors and keep at most
// 256 of them per thread block.
bool head_dim_fits(int64_t d) { return d > 0 && d % 8 == 0 && d <= 256; }

int64_t head_dim_of(const torch::Tensor& qkv, int64_t heads) {
  if (qkv.dim() != 2 || heads <= 0 || qkv.size(1) % (3 * heads) != 0) return 0;
  return qkv.size(1) / (3 * heads);
}

// LibTorch builds flash attention for Ampere (8.0) and later only.
bool flash_runs_on(const torch::Device& device) {
  return at::cuda::getDeviceProperties(device.index())->major >= 8;
}

// q, k, v as [T, heads, d] views of qkv (rows 3 * heads * d apart): the kernels
// take a row stride, so nothing is copied.
std::vector<torch::Tensor> split_heads(const torch::Tensor& qkv, int64_t heads) {
  return qkv.view({qkv.size(0), 3, heads, qkv.size(1) / (3 * heads)}).unbind(1);
}

torch::Tensor flash(const std::vector<torch::Tensor>& qkv, const PackedSequences& s, double p, double scale,
                    int64_t window) {
  std::optional<int64_t> left, right;
  if (window >= 0) left = right = window;  // columns within +-window, as ModernBERT's local layers
  auto out = at::_flash_attention_forward(qkv[0], qkv[1], qkv[2], s.device_starts, s.device_starts, s.longest,
                                          s.longest, p, /*is_causal=*/false, /*return_debug_mask=*/false, scale,
                                          left, right);
  return std::get<0>(out);
}

torch::Tensor memory_efficient(const std::vector<torch::Tensor>& qkv, const PackedSequences& s, double p,
                               double scale) {
  // Its variable-length form is one batch row holding every sequence. The
  // backward needs the log-sum-exp, computed only when asked for.
  const bool backward = torch::GradMode::is_enabled() && qkv[0].requires_grad();
  auto out = at::_efficient_attention_forward(qkv[0].unsqueeze(0), qkv[1].unsqueeze(0), qkv[2].unsqueeze(0),
                                              std::nullopt, s.device_starts, s.device_starts, s.longest, s.longest,
                                              p, /*custom_mask_type: none*/ 0, backward, scale);
  return std::get<0>(out).squeeze(0);
}
#endif

}  // namespace

bool varlen_attention_applies(const torch::Tensor& qkv, const PackedAttentionSpec& spec) {
#ifdef RUNNER_WITH_CUDA
  if (!qkv.is_cuda() || !head_dim_fits(head_dim_of(qkv, spec.heads))) return false;
  const auto dtype = qkv.scalar_type();
  if (dtype == torch::kHalf || dtype == torch::kBFloat16) return flash_runs_on(qkv.device());
  return dtype == torch::kFloat && spec.window < 0;
#else
  (void)qkv, (void)spec;
  return false;
#endif
}

torch::Tensor varlen_attention(const torch::Tensor& qkv, const PackedSequences& sequences,
                               const PackedAttentionSpec& spec) {
#ifdef RUNNER_WITH_CUDA
  const int64_t d = head_dim_of(qkv, spec.heads);
  const double p = spec.training ? spec.dropout_p : 0.0;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  const auto parts = split_heads(qkv, spec.heads);
  torch::Tensor context = qkv.scalar_type() == torch::kFloat
                              ? memory_efficient(parts, sequences, p, scale)
                              : flash(parts, sequences, p, scale, spec.window);
  return context.reshape({qkv.size(0), spec.heads * d});
#else
  (void)qkv, (void)sequences, (void)spec;
  throw std::logic_error("varlen_attention needs a CUDA build; check varlen_attention_applies first");
#endif
}

}  // namespace runner
