#include "optim/fused_adam.h"
#include "util/kernel_isa.h"

#include <ATen/Parallel.h>

#include <cmath>

// Built with -ffp-contract=off (meson.build: runner_kernels), so that the only
// fmas are the written ones: where ATen's AVX2/AVX-512 kernels end in one (the
// compiler contracts their Vectorized `a + b * c`), and nowhere else.

namespace runner {
namespace {

// One loop, stamped out once per instruction set (util/kernel_isa.h) so that
// it is vectorised with AVX-512 or AVX2 + FMA where the CPU has them, and so
// that RUNNER_KERNEL_ISA can run another machine's variant here. Every variant
// computes the same roundings: fp-contract is off and the only fmas are std::fma.
#define RUNNER_ADAM_LOOP(NAME, TARGET)                                                      \
  template <bool Decoupled>                                                                 \
  TARGET void NAME(float* p, const float* g, float* m, float* v, int64_t n, AdamScalars s) { \
    for (int64_t i = 0; i < n; ++i) {                                                       \
      float grad = g[i], param = p[i];                                                      \
      if (Decoupled) param = param * s.decay_factor; /* p.mul_(1 - lr * wd) */              \
      else grad = std::fma(param, s.weight_decay, grad); /* grad.add(p, alpha = wd) */      \
      /* mul_(b1).add_(g, 1 - b1) and mul_(b2).addcmul_(g, g, 1 - b2) */                    \
      float mi = std::fma(grad, s.one_minus_beta1, m[i] * s.beta1);                         \
      float vi = std::fma(s.one_minus_beta2 * grad, grad, v[i] * s.beta2);                  \
      float denom = std::sqrt(vi) / s.bias_correction2_sqrt + s.eps;                        \
      p[i] = param + s.neg_step_size * mi / denom; /* addcdiv_: value * t1 first */         \
      m[i] = mi;                                                                            \
      v[i] = vi;                                                                            \
    }                                                                                       \
  }
RUNNER_ADAM_LOOP(adam_avx512, RUNNER_TARGET_AVX512)
RUNNER_ADAM_LOOP(adam_avx2, RUNNER_TARGET_AVX2)
RUNNER_ADAM_LOOP(adam_generic, RUNNER_TARGET_GENERIC)
#undef RUNNER_ADAM_LOOP

using AdamLoop = void (*)(float*, const float*, float*, float*, int64_t, AdamScalars);

template <bool Decoupled>
AdamLoop adam_loop() {
  switch (kernel_isa()) {
    case KernelIsa::Avx512: return adam_avx512<Decoupled>;
    case KernelIsa::Avx2: return adam_avx2<Decoupled>;
    case KernelIsa::Generic: break;
  }
  return adam_generic<Decoupled>;
}

}  // namespace

void fused_adam_step(float* param, const float* grad, float* exp_avg, float* exp_avg_sq,
                     int64_t n, const AdamScalars& s) {
  // Large grains: the loop is memory-bound and small parameters are not worth a thread.
  const AdamLoop loop = s.decoupled ? adam_loop<true>() : adam_loop<false>();
  at::parallel_for(0, n, 1 << 16, [&](int64_t begin, int64_t end) {
    loop(param + begin, grad + begin, exp_avg + begin, exp_avg_sq + begin, end - begin, s);
  });
}

}  // namespace runner
