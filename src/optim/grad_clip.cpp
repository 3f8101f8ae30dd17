#include "optim/grad_clip.h"

#include <torch/version.h>

namespace runner {
namespace {

std::vector<torch::Tensor> defined_grads(const std::vector<NamedParameter>& params) {
  std::vector<torch::Tensor> grads;
  for (const auto& p : params)
    if (p.tensor.grad().defined()) grads.push_back(p.tensor.grad().detach());
  return grads;
}

// On a GPU, one multi-tensor kernel per pass instead of one launch per
// parameter (BERT-base: 201); on the CPU the per-tensor loop, which is what
// _foreach_norm runs there too.
bool one_kernel_per_pass(const std::vector<torch::Tensor>& grads) { return !grads.front().is_cpu(); }

torch::Tensor norm_of(const std::vector<torch::Tensor>& grads) {
  if (grads.empty()) return torch::zeros({});
  std::vector<torch::Tensor> norms;
  if (one_kernel_per_pass(grads)) {
    norms = at::_foreach_norm(grads, 2.0);
  } else {
    norms.reserve(grads.size());
    for (const auto& g : grads) norms.push_back(at::linalg_vector_norm(g, 2.0));
  }
  return at::linalg_vector_norm(torch::stack(norms), 2.0);
}

}  // namespace

torch::Tensor global_grad_norm(const std::vector<NamedParameter>& params) {
  torch::NoGradGuard no_grad;
  return norm_of(defined_grads(params));
}

torch::Tensor clip_grad_norm(const std::vector<NamedParameter>& params, double max_norm) {
  torch::Tensor total = global_grad_norm(params);
  clip_to_norm(params, total, max_norm);
  return total;
}

void clip_to_norm(const std::vector<NamedParameter>& params, const torch::Tensor& total, double max_norm) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> grads = defined_grads(params);
  if (max_norm <= 0 || grads.empty()) return;
  // Python's `max_norm / (total + 1e-6)` is Tensor.__rtruediv__: reciprocal() * max_norm.
  torch::Tensor coef = (total + 1e-6).reciprocal() * max_norm;
  torch::Tensor clamped = torch::clamp(coef, c10::nullopt, 1.0);
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 1)
  if (one_kernel_per_pass(grads)) {  // _foreach_mul_ by a tensor: LibTorch 2.1 on
    at::_foreach_mul_(grads, clamped);
    return;
  }
#endif
  for (auto& g : grads) g.mul_(clamped);
}

}  // namespace runner
