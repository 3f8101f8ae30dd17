// The trainer's autocast guard: which dtype a matmul runs in inside it, and that
// it restores the state it found (the bf16 parity and e2e tests rely on it).
#include "train/autocast.h"
#include "util/cpu_info.h"

#include <cstdlib>

#include "catch.h"

using runner::AutocastGuard;

namespace {

at::ScalarType matmul_dtype() {
  auto a = torch::ones({2, 3}), b = torch::ones({3, 2});
  return torch::matmul(a, b).scalar_type();
}

}  // namespace

TEST_CASE("autocast guard: bf16 on the CPU runs matmuls in bfloat16 and restores fp32", "[train]") {
  REQUIRE(matmul_dtype() == at::kFloat);
  {
    AutocastGuard guard(runner::Precision::Bf16, c10::DeviceType::CPU);
    CHECK(matmul_dtype() == at::kBFloat16);
  }
  CHECK(matmul_dtype() == at::kFloat);
}

TEST_CASE("autocast guard: fp32 leaves autocast off; nested guards restore the outer one", "[train]") {
  {
    AutocastGuard off(runner::Precision::Fp32, c10::DeviceType::CPU);
    CHECK(matmul_dtype() == at::kFloat);
  }
  AutocastGuard outer(runner::Precision::Bf16, c10::DeviceType::CPU);
  {
    AutocastGuard inner(runner::Precision::Fp32, c10::DeviceType::CPU);
    CHECK(matmul_dtype() == at::kBFloat16);  // fp32 does not switch an enclosing autocast off
  }
  CHECK(matmul_dtype() == at::kBFloat16);
}

TEST_CASE("autocast guard: forced bf16 emulation takes ATen's GEMM, as a CPU without AVX-512 does",
          "[train]") {
  // RUNNER_CPU_BF16=emulated (scripts/cpu_matrix.sh's Zen 3 variants): no native bf16
  // reported, and oneDNN off from the first bf16 guard on: the backward's bf16
  // matmuls run after the guard and must take ATen's GEMM too.
  struct Env {
    Env() {
      setenv("RUNNER_CPU_BF16", "emulated", 1);
      // oneDNN on, as a process starts: an earlier bf16 test under the same
      // variable (the cpu-matrix's Zen 3 runs) has switched it off.
      at::globalContext().setUserEnabledMkldnn(true);
    }
    ~Env() {
      unsetenv("RUNNER_CPU_BF16");
      at::globalContext().setUserEnabledMkldnn(true);  // the other tests of this process
    }
  } env;
  CHECK_FALSE(runner::cpu_has_native_bf16());
  REQUIRE(at::globalContext().userEnabledMkldnn());
  {
    AutocastGuard fp32(runner::Precision::Fp32, c10::DeviceType::CPU);  // nothing to route
    CHECK(at::globalContext().userEnabledMkldnn());
  }
  {
    AutocastGuard guard(runner::Precision::Bf16, c10::DeviceType::CPU);
    CHECK_FALSE(at::globalContext().userEnabledMkldnn());
    CHECK(matmul_dtype() == at::kBFloat16);
  }
  CHECK_FALSE(at::globalContext().userEnabledMkldnn());
}
