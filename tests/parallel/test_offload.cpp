// topology.offload's mechanism with the host and the compute device both the
// CPU: the trajectory must be the non-offloaded one bit for bit, from separate
// (not aliased) master weights, and a saved state must resume the same way.
#include "parallel/optimizer_offload.h"
#include "registry/registry.h"

#include "catch.h"

using namespace runner;

namespace {

std::vector<NamedParameter> fresh_parameters() {
  std::vector<NamedParameter> out;
  out.push_back({"encoder.weight", (torch::sin(torch::arange(12.0)) * 0.3).reshape({3, 4}).to(torch::kFloat32)});
  out.push_back({"encoder.bias", torch::linspace(-0.2, 0.2, 3)});
  out.push_back({"unused.weight", torch::ones({2})});  // never gets a gradient
  for (auto& p : out) p.tensor.set_requires_grad(true);
  return out;
}

std::unique_ptr<Optimizer> adamw(std::vector<NamedParameter> params) {
  nlohmann::json o = {{"lr", 0.01}, {"weight_decay", 0.1}, {"no_decay", {"bias"}},
                      {"betas", {0.9, 0.999}}, {"eps", 1e-8}};
  return registry().factory<OptimizerFactory>(Kind::Optimizer, "adamw")(o, std::move(params));
}

// Gradient `step` of parameter i: the same for both runs.
void set_gradients(std::vector<NamedParameter>& params, int step) {
  for (size_t i = 0; i + 1 < params.size(); ++i) {
    torch::Tensor& p = params[i].tensor;
    p.mutable_grad() = torch::cos(torch::arange(p.numel(), torch::kFloat32) * (step + 1.0) + static_cast<double>(i)).reshape(p.sizes());
  }
}

void require_equal(const std::vector<NamedParameter>& a, const std::vector<NamedParameter>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    INFO(a[i].name);
    REQUIRE(torch::equal(a[i].tensor, b[i].tensor));
  }
}

void require_same_state(const Optimizer& a, const Optimizer& b) {
  TensorMap sa = a.state(), sb = b.state();
  REQUIRE(sa.size() == sb.size());
  for (const auto& [k, v] : sa) {
    INFO(k);
    REQUIRE(sb.count(k) == 1);
    CHECK(torch::equal(v, sb.at(k)));
  }
}

}  // namespace

TEST_CASE("optimizer offload: the host step follows the plain AdamW trajectory bit for bit", "[parallel][offload]") {
  std::vector<NamedParameter> plain_params = fresh_parameters(), off_params = fresh_parameters();
  auto plain = adamw(plain_params);
  OffloadedOptimizer offloaded(off_params, adamw, torch::kCPU);
  for (size_t i = 0; i < off_params.size(); ++i) {  // masters are copies, not the parameters
    CHECK(offloaded.master_weights()[i].data_ptr() != off_params[i].tensor.data_ptr());
    CHECK(offloaded.master_weights()[i].scalar_type() == torch::kFloat32);
  }
  CHECK(offloaded.weight_decay_of(0) == 0.1);
  CHECK(offloaded.weight_decay_of(1) == 0.0);
  for (int step = 0; step < 5; ++step) {
    set_gradients(plain_params, step);
    set_gradients(off_params, step);
    plain->step(0.01);
    offloaded.step(0.01);
    require_equal(plain_params, off_params);
    require_same_state(*plain, offloaded);
    plain->zero_grad();
    offloaded.zero_grad();
  }
  CHECK(torch::equal(off_params[2].tensor, torch::ones({2})));  // no gradient, no step
  CHECK(offloaded.state().count("unused.weight/exp_avg") == 0);

  SECTION("a saved state resumes onto new parameters and goes on identically") {
    // As Trainer::resume: the optimizer exists first, then the model's tensors
    // are loaded, then the optimizer state; the masters must follow the model.
    std::vector<NamedParameter> resumed_params = fresh_parameters();
    OffloadedOptimizer resumed(resumed_params, adamw, torch::kCPU);
    {
      torch::NoGradGuard no_grad;
      for (size_t i = 0; i < resumed_params.size(); ++i) resumed_params[i].tensor.copy_(off_params[i].tensor);
    }
    resumed.load_state(offloaded.state());
    for (int step = 5; step < 8; ++step) {
      set_gradients(plain_params, step);
      set_gradients(resumed_params, step);
      plain->step(0.01);
      resumed.step(0.01);
      plain->zero_grad();
      resumed.zero_grad();
    }
    require_equal(plain_params, resumed_params);
  }
}
