// adamw and adam with the arithmetic of torch 1.13's _single_tensor_*
// functions (same float operations, scalars computed in double as torch does);
// Adam on float32 CPU parameters runs fused, one pass per parameter (fused_adam.h).
// Adam on a GPU takes torch's own fused kernel where LibTorch has one (2.4 on):
// torch 2.x's arithmetic (lerp_ moments), every input read on the device.
// sgd is optim/sgd.cpp; their options and specs optim/optimizer_components.cpp
// (torch-free).
#include "optim/optimizer.h"
#include "optim/fused_adam.h"
#include "optim/optimizer_components.h"
#include "model/host_read.h"
#include "registry/registry.h"
#include "util/diagnostic.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <torch/version.h>

#include <cmath>
#include <map>

// torch's fused Adam(W) with a tensor learning rate and CPU kernels: LibTorch 2.4 on.
#define RUNNER_TORCH_FUSED_ADAM (TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4))

namespace runner {

bool matches_no_decay(const std::string& name, const std::vector<std::string>& patterns) {
  for (const auto& p : patterns)
    if (!p.empty() && name.find(p) != std::string::npos) return true;
  return false;
}

Optimizer::Optimizer(std::vector<NamedParameter> params, double base_lr, double weight_decay,
                     const std::vector<std::string>& no_decay)
    : params_(std::move(params)), base_lr_(base_lr) {
  for (const auto& p : params_)
    decay_.push_back(matches_no_decay(p.name, no_decay) ? 0.0 : weight_decay);
}

void Optimizer::step(double lr) {
  const torch::Device device = params_.empty() ? torch::Device(torch::kCPU) : params_.front().tensor.device();
  apply({torch::full({}, lr, torch::TensorOptions().dtype(torch::kFloat64).device(device)), {}});
}

void Optimizer::zero_grad() {
  torch::NoGradGuard no_grad;
  for (auto& p : params_) {
    auto& g = p.tensor.mutable_grad();
    if (g.defined()) g.zero_();
  }
}

torch::Tensor optimizer_state_entry(const TensorMap& state, const std::string& key,
                                      const torch::Tensor& like) {
  auto it = state.find(key);
  if (it == state.end())
    throw InputError(make_error({}, "", fmt::format("optimizer state has no entry '{}'", key),
                                "the checkpoint was written for another model or optimizer"));
  if (like.defined() && it->second.sizes() != like.sizes())
    throw InputError(make_error(
        {}, "",
        fmt::format("optimizer state '{}' has shape {}, the parameter has shape {}", key,
                    fmt::join(it->second.sizes().vec(), "x"), fmt::join(like.sizes().vec(), "x")),
        "the checkpoint was written for another model configuration"));
  return it->second.to(like.defined() ? like.options() : it->second.options()).clone();
}

namespace {

struct AdamOptions {
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  bool decoupled = true;  // AdamW: p *= 1 - lr*wd; Adam: g += wd*p
};

// Per-parameter Adam state. `step` is a float32 tensor as torch keeps it.
struct AdamSlot {
  torch::Tensor step, exp_avg, exp_avg_sq;
};

// The scalars of one update, computed in double as torch 1.13's
// _single_tensor_adam(w) computes them from `step.item()`, then rounded to float.
AdamScalars adam_scalars(const AdamOptions& o, double lr, double wd, double step) {
  const double bias_correction1 = 1 - std::pow(o.beta1, step);
  const double bias_correction2 = 1 - std::pow(o.beta2, step);
  AdamScalars k;
  k.decoupled = o.decoupled;
  k.decay_factor = static_cast<float>(1 - lr * wd);
  k.weight_decay = static_cast<float>(wd);
  k.beta1 = static_cast<float>(o.beta1), k.one_minus_beta1 = static_cast<float>(1 - o.beta1);
  k.beta2 = static_cast<float>(o.beta2), k.one_minus_beta2 = static_cast<float>(1 - o.beta2);
  k.bias_correction2_sqrt = static_cast<float>(std::sqrt(bias_correction2));
  k.eps = static_cast<float>(o.eps);
  k.neg_step_size = static_cast<float>(-(lr / bias_correction1));
  return k;
}

class Adam : public Optimizer {
 public:
  Adam(std::vector<NamedParameter> params, double lr, double wd,
       const std::vector<std::string>& no_decay, AdamOptions o, AdamKernel kernel)
      : Optimizer(std::move(params), lr, wd, no_decay), o_(o), kernel_(kernel),
        slots_(params_.size()) {}

  // torch's fused kernel takes every input on the device; the op sequence reads them on the host.
  bool capturable(const torch::Device& device) const override {
    return device.is_cuda() && kernel_ != AdamKernel::Ops && torch_has_fused_adam();
  }

  TensorMap state() const override {
    TensorMap m;
    for (size_t i = 0; i < params_.size(); ++i) {
      if (!slots_[i].step.defined()) continue;
      const std::string& n = params_[i].name;
      m[n + "/step"] = slots_[i].step;
      m[n + "/exp_avg"] = slots_[i].exp_avg;
      m[n + "/exp_avg_sq"] = slots_[i].exp_avg_sq;
    }
    return m;
  }

  void load_state(const TensorMap& state) override {
    for (size_t i = 0; i < params_.size(); ++i) {
      const std::string& n = params_[i].name;
      if (!state.count(n + "/step")) {
        slots_[i] = AdamSlot{};
        continue;
      }
      const torch::Tensor& p = params_[i].tensor;
      slots_[i].step = optimizer_state_entry(state, n + "/step", torch::Tensor());
      slots_[i].exp_avg = optimizer_state_entry(state, n + "/exp_avg", p);
      slots_[i].exp_avg_sq = optimizer_state_entry(state, n + "/exp_avg_sq", p);
    }
  }

 protected:
  void apply(const StepInputs& in) override {
    torch::NoGradGuard no_grad;
    std::vector<size_t> for_torch;  // parameters that torch's fused kernel updates
    for (size_t i = 0; i < params_.size(); ++i) {
      torch::Tensor& p = params_[i].tensor;
      if (!p.grad().defined()) continue;
      if (takes_torch_fused(p)) for_torch.push_back(i);
      else update(p, p.grad(), slot(i), in, decay_[i]);
    }
    if (!for_torch.empty()) torch_fused_step(for_torch, in);
  }

 private:
  AdamSlot& slot(size_t i) {
    AdamSlot& s = slots_[i];
    if (!s.step.defined()) {
      const torch::Tensor& p = params_[i].tensor;
      s.step = torch::zeros({}, torch::kFloat32);
      s.exp_avg = torch::zeros_like(p, torch::MemoryFormat::Preserve);
      s.exp_avg_sq = torch::zeros_like(p, torch::MemoryFormat::Preserve);
    }
    return s;
  }

  bool takes_torch_fused(const torch::Tensor& p) const {
    if (kernel_ == AdamKernel::TorchFused) return true;
    return kernel_ == AdamKernel::Auto && !p.device().is_cpu() && torch_has_fused_adam() &&
           at::isFloatingType(p.scalar_type());
  }

  void update(torch::Tensor& p, const torch::Tensor& grad, AdamSlot& s, const StepInputs& in,
              double wd) {
    if (kernel_ == AdamKernel::Auto && fusable(p, grad, s, in)) {
      // All on the CPU: the kernel reads its inputs where they are, as a GPU
      // kernel reads device memory (no host read to count).
      if (in.skip.defined() && *in.skip.data_ptr<bool>()) return;
      float& step = *s.step.data_ptr<float>();
      step += 1;  // step_t += 1, in float32
      AdamScalars k = adam_scalars(o_, *in.lr.data_ptr<double>(), wd, step);
      fused_adam_step(p.data_ptr<float>(), grad.data_ptr<float>(), s.exp_avg.data_ptr<float>(),
                      s.exp_avg_sq.data_ptr<float>(), p.numel(), k);
      return;
    }
    // The op sequence reads its scalars on the host, as torch 1.13 does.
    if (in.skip.defined() && read_bool(in.skip)) return;
    s.step.add_(1);
    update_with_ops(p, grad, s, read_double(in.lr), wd, read_double(s.step));
  }

  static bool fusable(const torch::Tensor& p, const torch::Tensor& grad, const AdamSlot& s,
                      const StepInputs& in) {
    for (const torch::Tensor* t : {&p, &grad, &s.exp_avg, &s.exp_avg_sq})
      if (!t->device().is_cpu() || t->scalar_type() != torch::kFloat32 || !t->is_contiguous())
        return false;
    const bool host_inputs = in.lr.is_cpu() && in.lr.scalar_type() == torch::kFloat64 &&
                             (!in.skip.defined() || (in.skip.is_cpu() && in.skip.scalar_type() == torch::kBool));
    return host_inputs && s.step.is_cpu() && grad.numel() == p.numel();
  }

  // torch 1.13's _single_tensor_adam(w) op sequence (the same arithmetic as the fused loop).
  void update_with_ops(torch::Tensor& p, torch::Tensor grad, AdamSlot& s, double lr, double wd,
                       double step) {
    const double bias_correction1 = 1 - std::pow(o_.beta1, step);
    const double bias_correction2_sqrt = std::sqrt(1 - std::pow(o_.beta2, step));
    if (o_.decoupled) {
      p.mul_(1 - lr * wd);
    } else if (wd != 0) {
      grad = grad.add(p, wd);
    }
    s.exp_avg.mul_(o_.beta1).add_(grad, 1 - o_.beta1);
    s.exp_avg_sq.mul_(o_.beta2).addcmul_(grad, grad, 1 - o_.beta2);
    torch::Tensor denom = (s.exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(o_.eps);
    p.addcdiv_(s.exp_avg, denom, -(lr / bias_correction1));
  }

  void torch_fused_step(const std::vector<size_t>& which, const StepInputs& in);

  AdamOptions o_;
  AdamKernel kernel_;
  std::vector<AdamSlot> slots_;
};

// torch's fused Adam(W): one kernel launch per call instead of about eight per
// parameter, reading lr, the skip flag and the step counts on the device. Torch's
// kernel takes one weight decay per call: one call per value (two: decay and not).
// As torch.optim does around it, the step counts are advanced before the kernel
// and taken back when the step is skipped.
#if RUNNER_TORCH_FUSED_ADAM
void Adam::torch_fused_step(const std::vector<size_t>& which, const StepInputs& in) {
  std::map<double, std::vector<size_t>> by_decay;
  for (size_t i : which) by_decay[decay_[i]].push_back(i);
  const torch::Device device = params_[which.front()].tensor.device();
  const torch::Tensor lr = in.lr.to(device, torch::kFloat32);  // the CUDA kernel reads a float
  c10::optional<torch::Tensor> found;
  if (in.skip.defined()) found = in.skip.to(device, torch::kFloat32);
  for (const auto& [wd, group] : by_decay) {
    std::vector<torch::Tensor> ps, gs, ms, vs, steps;
    for (size_t i : group) {
      AdamSlot& s = slot(i);
      const torch::Tensor& p = params_[i].tensor;
      if (s.step.device() != p.device()) s.step = s.step.to(p.device());
      ps.push_back(p), gs.push_back(p.grad()), ms.push_back(s.exp_avg), vs.push_back(s.exp_avg_sq);
      steps.push_back(s.step);
    }
    at::_foreach_add_(steps, 1);
    if (o_.decoupled)
      at::_fused_adamw_(ps, gs, ms, vs, {}, steps, lr, o_.beta1, o_.beta2, wd, o_.eps, false, false, {}, found);
    else
      at::_fused_adam_(ps, gs, ms, vs, {}, steps, lr, o_.beta1, o_.beta2, wd, o_.eps, false, false, {}, found);
    if (found) at::_foreach_sub_(steps, std::vector<torch::Tensor>(steps.size(), *found));
  }
}
#else
void Adam::torch_fused_step(const std::vector<size_t>&, const StepInputs&) {
  throw std::logic_error("torch's fused Adam needs LibTorch 2.4 or later");
}
#endif

std::vector<std::string> no_decay_list(const nlohmann::json& o) {
  return o.at("no_decay").get<std::vector<std::string>>();
}

}  // namespace

bool torch_has_fused_adam() { return RUNNER_TORCH_FUSED_ADAM; }

std::unique_ptr<Optimizer> make_adam_optimizer(const nlohmann::json& o, std::vector<NamedParameter> params,
                                               bool decoupled, AdamKernel kernel) {
  auto betas = o.at("betas").get<std::vector<double>>();
  if (betas.size() != 2)
    throw InputError(make_error({}, "optimizer.betas",
                                fmt::format("expected 2 numbers, found {}", betas.size()),
                                "write betas = [0.9, 0.999]"));
  AdamOptions a{betas[0], betas[1], o.at("eps").get<double>(), decoupled};
  if (kernel == AdamKernel::TorchFused && !torch_has_fused_adam())
    throw std::logic_error("torch's fused Adam needs LibTorch 2.4 or later");
  return std::make_unique<Adam>(std::move(params), o.at("lr").get<double>(),
                                o.at("weight_decay").get<double>(), no_decay_list(o), a, kernel);
}

const OptimizerBuilders& optimizer_builders() {
  static const OptimizerBuilders builders{
      OptimizerFactory([](const nlohmann::json& o, std::vector<NamedParameter> p) {
        return make_adam_optimizer(o, std::move(p), true);
      }),
      OptimizerFactory([](const nlohmann::json& o, std::vector<NamedParameter> p) {
        return make_adam_optimizer(o, std::move(p), false);
      }),
      OptimizerFactory(make_sgd_optimizer)};
  return builders;
}

}  // namespace runner
