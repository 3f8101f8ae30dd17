#include "parallel/optimizer_offload.h"
#include "model/host_read.h"

namespace runner {

OffloadedOptimizer::OffloadedOptimizer(std::vector<NamedParameter> device_params,
                                       const OptimizerMaker& make_inner, const torch::Device& host)
    : Optimizer(std::move(device_params), 0.0, 0.0, {}) {
  torch::NoGradGuard no_grad;
  std::vector<NamedParameter> host_params;
  for (const auto& p : params_) {
    // Page-locked host memory only pays (and only exists) for copies to and from a GPU.
    const bool pin = host.is_cpu() && !p.tensor.device().is_cpu();
    auto options = torch::TensorOptions().dtype(torch::kFloat32).device(host).pinned_memory(pin);
    torch::Tensor master = torch::empty(p.tensor.sizes(), options);
    master.copy_(p.tensor.detach());
    master.set_requires_grad(true);
    masters_.push_back(master);
    host_grads_.push_back(torch::empty(p.tensor.sizes(), options));
    host_params.push_back({p.name, master});
  }
  inner_ = make_inner(std::move(host_params));
  base_lr_ = inner_->base_lr();
  for (size_t i = 0; i < params_.size(); ++i) decay_[i] = inner_->weight_decay_of(i);
}

void OffloadedOptimizer::apply(const StepInputs& in) {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < params_.size(); ++i) {
    const torch::Tensor& grad = params_[i].tensor.grad();
    if (!grad.defined()) {
      masters_[i].mutable_grad() = torch::Tensor();
      continue;
    }
    // Blocking: the host reads it right away. It also waits for the previous
    // step's non-blocking copies back, which read the masters about to change.
    host_grads_[i].copy_(grad);
    masters_[i].mutable_grad() = host_grads_[i];
  }
  StepInputs host{read_to_host(in.lr), in.skip.defined() ? read_to_host(in.skip) : torch::Tensor()};
  inner_->step(host);
  for (size_t i = 0; i < params_.size(); ++i)
    if (masters_[i].grad().defined()) params_[i].tensor.copy_(masters_[i], /*non_blocking=*/true);
}

void OffloadedOptimizer::load_state(const TensorMap& state) {
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params_.size(); ++i) masters_[i].copy_(params_[i].tensor.detach());
  }
  inner_->load_state(state);
}

}  // namespace runner
