// Dynamic loss scaling: injected inf/NaN gradients must skip the step and halve
// the scale; clean steps grow it after growth_interval.
#include "optim/loss_scaler.h"
#include "model/host_read.h"

#include "catch.h"

#include <limits>

using namespace runner;

namespace {
torch::Tensor flag(bool value) { return torch::full({}, value, torch::kBool); }

std::vector<NamedParameter> params_with_grad(float g0, float g1) {
  NamedParameter p{"w", torch::zeros({2}).set_requires_grad(true)};
  p.tensor.mutable_grad() = torch::tensor({g0, g1});
  return {p};
}
}  // namespace

TEST_CASE("loss scaler scales the loss and unscales clean gradients", "[optim]") {
  LossScaler s(true, 1024.0, 3);
  CHECK(s.scale_loss(torch::tensor(0.5f)).item<float>() == 512.0f);
  auto ps = params_with_grad(2048.0f, -512.0f);
  CHECK_FALSE(read_bool(s.unscale(ps)));
  CHECK(ps[0].tensor.grad()[0].item<float>() == 2.0f);
  CHECK(ps[0].tensor.grad()[1].item<float>() == -0.5f);
}

TEST_CASE("loss scaler skips and backs off on inf and NaN gradients", "[optim]") {
  LossScaler s(true, 1024.0, 3);
  auto inf = params_with_grad(std::numeric_limits<float>::infinity(), 1.0f);
  torch::Tensor found = s.unscale(inf);
  CHECK(read_bool(found));
  s.update(found);
  CHECK(s.state().scale == 512.0);
  CHECK(s.state().skipped_steps == 1);

  auto nan = params_with_grad(1.0f, std::numeric_limits<float>::quiet_NaN());
  found = s.unscale(nan);
  CHECK(read_bool(found));
  s.update(found);
  CHECK(s.state().scale == 256.0);
  CHECK(s.state().skipped_steps == 2);
  CHECK(s.state().growth_tracker == 0);
}

TEST_CASE("loss scaler grows after growth_interval clean steps, a skip resets the count",
          "[optim]") {
  LossScaler s(true, 8.0, 3);
  s.update(flag(false));
  s.update(flag(false));
  s.update(flag(true));  // backoff to 4 and restart the count
  CHECK(s.state().scale == 4.0);
  s.update(flag(false));
  s.update(flag(false));
  CHECK(s.state().scale == 4.0);
  s.update(flag(false));
  CHECK(s.state().scale == 8.0);
  CHECK(s.state().growth_tracker == 0);
}

TEST_CASE("a disabled loss scaler is the identity", "[optim]") {
  LossScaler s(false, 65536.0, 2);
  CHECK(s.scale_loss(torch::tensor(0.25f)).item<float>() == 0.25f);
  auto inf = params_with_grad(std::numeric_limits<float>::infinity(), 1.0f);
  CHECK_FALSE(s.unscale(inf).defined());
  s.update(flag(false));
  s.update(flag(false));
  CHECK(s.state().scale == 1.0);
}
