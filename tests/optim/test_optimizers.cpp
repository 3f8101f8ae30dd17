// Optimizer updates checked against the torch.optim formulas written out by hand
// in double precision (shared/golden/README.md section 3 spells out AdamW's).
#include "optim/grad_clip.h"
#include "optim/optimizer.h"
#include "registry/registry.h"

#include "catch.h"

#include <cmath>

using namespace runner;

namespace {

nlohmann::json adam_options(double lr, double wd) {
  return {{"lr", lr},   {"weight_decay", wd}, {"no_decay", {"bias", "LayerNorm.weight"}},
          {"betas", {0.9, 0.999}}, {"eps", 1e-8}};
}

std::unique_ptr<Optimizer> make(const std::string& type, const nlohmann::json& o,
                                std::vector<NamedParameter> params) {
  return registry().factory<OptimizerFactory>(Kind::Optimizer, type)(o, std::move(params));
}

NamedParameter param(const std::string& name, std::vector<float> values) {
  return {name, torch::tensor(values).set_requires_grad(true)};
}

void set_grad(NamedParameter& p, std::vector<float> g) { p.tensor.mutable_grad() = torch::tensor(g); }

// The AdamW update of one element after t steps with constant gradient history `gs`.
double adamw_reference(double p, const std::vector<double>& gs, double lr, double wd) {
  double m = 0, v = 0;
  for (size_t t = 1; t <= gs.size(); ++t) {
    double g = gs[t - 1];
    p *= 1 - lr * wd;
    m = 0.9 * m + 0.1 * g;
    v = 0.999 * v + 0.001 * g * g;
    p -= lr / (1 - std::pow(0.9, t)) * m / (std::sqrt(v) / std::sqrt(1 - std::pow(0.999, t)) + 1e-8);
  }
  return p;
}

}  // namespace

TEST_CASE("adamw follows the decoupled update and skips decay for biases", "[optim]") {
  std::vector<NamedParameter> ps = {param("layer.weight", {1.0f, -2.0f}),
                                    param("layer.bias", {0.5f})};
  auto opt = make("adamw", adam_options(0.1, 0.5), ps);
  std::vector<double> g0 = {0.3, -1.5}, g1 = {2.0, 0.25};
  for (int t = 0; t < 2; ++t) {
    set_grad(ps[0], {static_cast<float>(t ? g1[0] : g0[0]), static_cast<float>(t ? g1[1] : g0[1])});
    set_grad(ps[1], {0.7f});
    opt->step(0.1);
  }
  CHECK(ps[0].tensor[0].item<double>() == Approx(adamw_reference(1.0, {0.3, 2.0}, 0.1, 0.5)).epsilon(1e-6));
  CHECK(ps[0].tensor[1].item<double>() == Approx(adamw_reference(-2.0, {-1.5, 0.25}, 0.1, 0.5)).epsilon(1e-6));
  // Bias: no decay; a constant gradient moves Adam by exactly lr per step (m/sqrt(v) = 1).
  CHECK(ps[1].tensor[0].item<double>() == Approx(adamw_reference(0.5, {0.7, 0.7}, 0.1, 0.0)).epsilon(1e-6));
  CHECK(ps[1].tensor[0].item<double>() == Approx(0.5 - 0.2).epsilon(1e-5));
  CHECK(opt->weight_decay_of(0) == 0.5);
  CHECK(opt->weight_decay_of(1) == 0.0);
}

// torch 1.13's _single_tensor_adamw for one parameter, op for op (the ops the
// Python stack runs); the runner's fused single-pass update must agree with it.
// With exact_sqrt the square root is the correctly rounded one (taken in double and
// rounded once to float, which is exact for sqrt: Figueroa 1995), as std::sqrt and
// Debian's LibTorch give it, whatever this LibTorch's own Tensor::sqrt does.
void torch_adamw_ops(torch::Tensor& p, const torch::Tensor& g, torch::Tensor& m, torch::Tensor& v,
                     int step, double lr, double wd, bool exact_sqrt = false) {
  p.mul_(1 - lr * wd);
  m.mul_(0.9).add_(g, 1 - 0.9);
  v.mul_(0.999).addcmul_(g, g, 1 - 0.999);
  double bias_correction1 = 1 - std::pow(0.9, step), bias_correction2 = 1 - std::pow(0.999, step);
  torch::Tensor root = exact_sqrt ? v.to(torch::kDouble).sqrt().to(torch::kFloat) : v.sqrt();
  auto denom = (root / std::sqrt(bias_correction2)).add_(1e-8);
  p.addcdiv_(m, denom, -(lr / bias_correction1));
}

// Two AdamW parameter updates may round the update's own operations differently:
// the square root (pip wheels take MKL's VML sqrt, within 1 ulp but not correctly
// rounded, where the fused kernels and Debian's LibTorch use std::sqrt: ~650 of
// 100003 roots differ per step), the division and the grouping of
// p + (-step_size) m / denom. Each is within an ulp of its operands, so a step's
// result is within 2^-23 (|p| + |update|), and Adam's update is at most about
// lr / (1 - b1) (Kingma & Ba, section 2.1): 10 lr bounds it. Measured in the
// result's own ulps that is several where p is near 0 (4 on 11 elements with
// LibTorch 2.11, 1 with 1.13).
bool within_adam_rounding(const torch::Tensor& got, const torch::Tensor& want, int steps, double lr) {
  torch::Tensor bound = steps * std::ldexp(1.0, -23) * (want.abs() + 10 * lr);
  torch::Tensor excess = (got - want).abs() - bound;
  UNSCOPED_INFO("largest difference over the bound: " << excess.max().item<double>());
  return excess.max().item<double>() <= 0;
}

TEST_CASE("fused adamw equals torch's op-by-op update over many elements and steps", "[optim]") {
  // 100003 elements: several threads' chunks and a tail that is no multiple of the vector width.
  torch::manual_seed(7);
  torch::Tensor start = torch::randn({100003});
  std::vector<NamedParameter> ps = {{"encoder.weight", start.clone().set_requires_grad(true)}};
  auto opt = make("adamw", adam_options(1e-3, 0.01), ps);
  torch::Tensor p = start.clone(), m = torch::zeros_like(p), v = torch::zeros_like(p);
  torch::Tensor p_exact = start.clone(), m_exact = m.clone(), v_exact = v.clone();
  for (int step = 1; step <= 4; ++step) {
    torch::Tensor g = torch::randn({100003}) * (step == 2 ? 1e-6 : 3.0);
    ps[0].tensor.mutable_grad() = g.clone();
    opt->step(1e-3);
    torch_adamw_ops(p, g, m, v, step, 1e-3, 0.01);
    torch_adamw_ops(p_exact, g, m_exact, v_exact, step, 1e-3, 0.01, /*exact_sqrt=*/true);
  }
  torch::NoGradGuard no_grad;
  CHECK(within_adam_rounding(ps[0].tensor, p, 4, 1e-3));
  // With the same correctly rounded root on both sides only the grouping of the last
  // operations may differ, so all but a few elements must be equal (measured: all
  // equal, with Debian's 1.13 and pip's 2.11). Against this LibTorch's own sqrt that
  // count is the library's: with MKL VML's sqrt (pip wheels) 11 of the 100003
  // parameters ended apart on an Intel Xeon and 210 on a Zen 5 (AVX-512 code), so
  // there only the bound above holds.
  auto ulps = (ps[0].tensor.view(torch::kInt32).to(torch::kInt64) -
               p_exact.view(torch::kInt32).to(torch::kInt64)).abs();
  INFO("elements that differ from the correctly rounded op sequence: " << ulps.gt(0).sum().item<int64_t>());
  CHECK(ulps.gt(0).to(torch::kFloat).mean().item<double>() < 1e-3);
  auto state = opt->state();
  CHECK(torch::allclose(state.at("encoder.weight/exp_avg"), m, 0, 0));
  CHECK(torch::allclose(state.at("encoder.weight/exp_avg_sq"), v, 1e-7, 0));
}

TEST_CASE("adamw with lr 0 changes nothing, as the golden trajectory's first step", "[optim]") {
  std::vector<NamedParameter> ps = {param("w", {1.25f, -3.0f})};
  auto opt = make("adamw", adam_options(5e-4, 0.01), ps);
  set_grad(ps[0], {1.0f, 2.0f});
  opt->step(0.0);
  CHECK(ps[0].tensor[0].item<float>() == 1.25f);
  CHECK(ps[0].tensor[1].item<float>() == -3.0f);
}

TEST_CASE("adam adds weight decay to the gradient", "[optim]") {
  std::vector<NamedParameter> ps = {param("w", {2.0f})};
  auto opt = make("adam", adam_options(0.01, 0.1), ps);
  set_grad(ps[0], {0.0f});
  opt->step(0.01);
  // g = 0 + 0.1*2 = 0.2; first Adam step moves by lr * sign(g) (up to eps).
  CHECK(ps[0].tensor[0].item<double>() == Approx(2.0 - 0.01).epsilon(1e-6));
}

TEST_CASE("sgd with momentum and nesterov", "[optim]") {
  nlohmann::json o = {{"lr", 0.1}, {"weight_decay", 0.0}, {"no_decay", nlohmann::json::array()},
                      {"momentum", 0.9}, {"dampening", 0.0}, {"nesterov", false}};
  std::vector<NamedParameter> ps = {param("w", {1.0f})};
  auto plain = make("sgd", o, ps);
  set_grad(ps[0], {1.0f});
  plain->step(0.1);  // buf = 1, p = 0.9
  plain->step(0.1);  // buf = 1.9, p = 0.71
  CHECK(ps[0].tensor[0].item<double>() == Approx(0.71).epsilon(1e-6));

  o["nesterov"] = true;
  std::vector<NamedParameter> qs = {param("w", {1.0f})};
  auto nest = make("sgd", o, qs);
  set_grad(qs[0], {1.0f});
  nest->step(0.1);  // buf = 1, d = 1 + 0.9 = 1.9, p = 0.81
  nest->step(0.1);  // buf = 1.9, d = 1 + 1.71 = 2.71, p = 0.539
  CHECK(qs[0].tensor[0].item<double>() == Approx(0.539).epsilon(1e-6));
}

TEST_CASE("optimizer state round-trips bit-exactly", "[optim]") {
  auto run = [](std::unique_ptr<Optimizer>& opt, std::vector<NamedParameter>& ps, int from, int to) {
    for (int t = from; t < to; ++t) {
      set_grad(ps[0], {std::sin(t * 1.3f), std::cos(t * 0.7f)});
      opt->step(1e-3 * (t + 1));
    }
  };
  std::vector<NamedParameter> a = {param("w", {0.1f, 0.2f})};
  auto opt_a = make("adamw", adam_options(1e-3, 0.01), a);
  run(opt_a, a, 0, 3);
  TensorMap saved = opt_a->state();
  torch::Tensor saved_param = a[0].tensor.detach().clone();

  std::vector<NamedParameter> b = {{"w", saved_param.clone().set_requires_grad(true)}};
  auto opt_b = make("adamw", adam_options(1e-3, 0.01), b);
  opt_b->load_state(saved);
  run(opt_a, a, 3, 6);
  run(opt_b, b, 3, 6);
  CHECK(torch::equal(a[0].tensor, b[0].tensor));
  CHECK(torch::equal(opt_a->state().at("w/exp_avg_sq"), opt_b->state().at("w/exp_avg_sq")));
  CHECK(opt_b->state().at("w/step").item<float>() == 6.0f);
}

TEST_CASE("optimizer state for another shape is rejected", "[optim]") {
  std::vector<NamedParameter> a = {param("w", {0.1f, 0.2f})};
  auto opt = make("adamw", adam_options(1e-3, 0.01), a);
  TensorMap bad = {{"w/step", torch::ones({})}, {"w/exp_avg", torch::zeros({3})},
                   {"w/exp_avg_sq", torch::zeros({3})}};
  CHECK_THROWS_WITH(opt->load_state(bad), Catch::Contains("w/exp_avg") && Catch::Contains("shape"));
}

TEST_CASE("clip_grad_norm returns the pre-clip global norm and scales to max_norm",
          "[optim]") {
  std::vector<NamedParameter> ps = {param("a", {3.0f, 4.0f}), param("b", {12.0f}),
                                    param("no_grad", {100.0f})};
  set_grad(ps[0], {3.0f, 4.0f});
  set_grad(ps[1], {12.0f});
  torch::Tensor norm = clip_grad_norm(ps, 1.0);
  CHECK(norm.item<double>() == Approx(13.0).epsilon(1e-7));  // sqrt(9 + 16 + 144)
  CHECK(global_grad_norm(ps).item<double>() == Approx(1.0).epsilon(1e-6));
  CHECK(ps[1].tensor.grad()[0].item<double>() == Approx(12.0 / 13.0).epsilon(1e-6));

  set_grad(ps[0], {0.3f, 0.4f});
  set_grad(ps[1], {0.0f});
  clip_grad_norm(ps, 1.0);  // below max_norm: unchanged
  CHECK(ps[0].tensor.grad()[1].item<float>() == 0.4f);
}

namespace {

std::unique_ptr<Optimizer> adamw_with(AdamKernel kernel, std::vector<NamedParameter> params) {
  return make_adam_optimizer(adam_options(1e-3, 0.01), std::move(params), true, kernel);
}

std::vector<AdamKernel> kernels_here() {
  std::vector<AdamKernel> k = {AdamKernel::Auto, AdamKernel::Ops};
  if (torch_has_fused_adam()) k.push_back(AdamKernel::TorchFused);
  return k;
}

}  // namespace

TEST_CASE("a skipped step leaves no trace in any Adam kernel", "[optim]") {
  // The trainer skips a window with a non-finite loss or gradient on the device
  // (StepInputs::skip): parameters, moments and the step count must stay as the
  // last applied step left them, whatever the gradient holds.
  for (AdamKernel kernel : kernels_here()) {
    torch::manual_seed(3);
    std::vector<NamedParameter> ps = {{"encoder.weight", torch::randn({1000}).set_requires_grad(true)}};
    auto opt = adamw_with(kernel, ps);
    ps[0].tensor.mutable_grad() = torch::randn({1000});
    opt->step(1e-3);
    torch::Tensor after_one = ps[0].tensor.detach().clone();
    TensorMap state_one;
    for (const auto& [k, v] : opt->state()) state_one[k] = v.clone();
    ps[0].tensor.mutable_grad() = torch::full({1000}, std::nan(""));
    opt->step(StepInputs{torch::full({}, 1e-3, torch::kFloat64), torch::full({}, true)});
    INFO("kernel " << static_cast<int>(kernel));
    CHECK(torch::equal(ps[0].tensor.detach(), after_one));
    for (const auto& [k, v] : opt->state()) CHECK(torch::equal(v.cpu(), state_one.at(k).cpu()));
    CHECK(opt->state().at("encoder.weight/step").item<float>() == 1.0f);
  }
}

// torch 2.x's own AdamW op by op (_single_tensor_adamw): the moment update is
// lerp_, where 1.13 (and the runner's Ops kernel) multiplies and adds.
void torch2_adamw_ops(torch::Tensor& p, const torch::Tensor& g, torch::Tensor& m, torch::Tensor& v, int step,
                      double lr, double wd) {
  p.mul_(1 - lr * wd);
  m.lerp_(g, 1 - 0.9);
  v.mul_(0.999).addcmul_(g, g, 1 - 0.999);
  const double bias_correction1 = 1 - std::pow(0.9, step);
  const double bias_correction2_sqrt = std::sqrt(1 - std::pow(0.999, step));
  torch::Tensor denom = (v.sqrt() / bias_correction2_sqrt).add_(1e-8);
  p.addcdiv_(m, denom, -(lr / bias_correction1));
}

TEST_CASE("torch's fused AdamW follows torch's own AdamW op sequence", "[optim]") {
  // The kernel the runner takes on a GPU (at::_fused_adamw_, LibTorch 2.4 on), here
  // on its CPU twin, against torch's op-by-op AdamW in the same form. The moments
  // are the same float operations: equal. The parameter's update may round its
  // square root, division and sum otherwise (within_adam_rounding).
  if (!torch_has_fused_adam()) {
    WARN("this LibTorch has no fused Adam (2.4 on): checked by `scripts/test.sh pip-torch`");
    return;
  }
  const double lr = 1e-3, wd = 0.01;
  torch::manual_seed(7);
  torch::Tensor start = torch::randn({100003});
  std::vector<NamedParameter> fused = {{"encoder.weight", start.clone().set_requires_grad(true)}};
  auto opt = adamw_with(AdamKernel::TorchFused, fused);
  torch::Tensor p = start.clone(), m = torch::zeros_like(p), v = torch::zeros_like(p);
  const int steps = 4;
  for (int step = 1; step <= steps; ++step) {
    torch::Tensor g = torch::randn({100003}) * (step == 2 ? 1e-6 : 3.0);
    fused[0].tensor.mutable_grad() = g.clone();
    opt->step(lr);
    torch2_adamw_ops(p, g, m, v, step, lr, wd);
  }
  torch::NoGradGuard no_grad;
  CHECK(torch::equal(opt->state().at("encoder.weight/exp_avg"), m));
  CHECK(torch::equal(opt->state().at("encoder.weight/exp_avg_sq"), v));
  CHECK(within_adam_rounding(fused[0].tensor, p, steps, lr));
  CHECK(opt->state().at("encoder.weight/step").item<float>() == 4.0f);
}
