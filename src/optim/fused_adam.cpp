#include "optim/fused_adam.h"

#include <ATen/Parallel.h>

#include <cmath>

// Built with -ffp-contract=off (meson.build: runner_kernels), so that the only
// fmas are the written ones: where ATen's AVX2/AVX-512 kernels end in one (the
// compiler contracts their Vectorized `a + b * c`), and nowhere else.

namespace runner {
namespace {

// Cloned per instruction set (selected at load time), so the loop is vectorised
// with AVX-512 or AVX2 + FMA where the CPU has them. clang 14 cannot clone a
// template (the sanitizer build, scripts/sanitize_build.sh): there it is
// inlined into two plain cloned functions instead. gcc keeps the template
// clones, which it vectorises for AVX2 too (it did not through the wrappers).
#if defined(__clang__)
#define RUNNER_ADAM_CLONES inline __attribute__((always_inline))
#else
#define RUNNER_ADAM_CLONES __attribute__((target_clones("avx512f", "arch=haswell", "default")))
#endif
template <bool Decoupled>
RUNNER_ADAM_CLONES void adam_chunk(float* p, const float* g, float* m, float* v, int64_t n,
                                   AdamScalars s) {
  for (int64_t i = 0; i < n; ++i) {
    float grad = g[i], param = p[i];
    if (Decoupled) param = param * s.decay_factor;      // p.mul_(1 - lr * wd)
    else grad = std::fma(param, s.weight_decay, grad);  // grad.add(p, alpha = wd)
    float mi = std::fma(grad, s.one_minus_beta1, m[i] * s.beta1);  // mul_(b1).add_(g, 1 - b1)
    float vi = std::fma(s.one_minus_beta2 * grad, grad, v[i] * s.beta2);  // mul_(b2).addcmul_(g, g, 1 - b2)
    float denom = std::sqrt(vi) / s.bias_correction2_sqrt + s.eps;
    p[i] = param + s.neg_step_size * mi / denom;  // addcdiv_(m, denom, -step): value * t1 first
    m[i] = mi;
    v[i] = vi;
  }
}

#if defined(__clang__)
__attribute__((target_clones("avx512f", "arch=haswell", "default"))) void adam_chunk_decoupled(
    float* p, const float* g, float* m, float* v, int64_t n, AdamScalars s) {
  adam_chunk<true>(p, g, m, v, n, s);
}
__attribute__((target_clones("avx512f", "arch=haswell", "default"))) void adam_chunk_coupled(
    float* p, const float* g, float* m, float* v, int64_t n, AdamScalars s) {
  adam_chunk<false>(p, g, m, v, n, s);
}
#else
void adam_chunk_decoupled(float* p, const float* g, float* m, float* v, int64_t n, AdamScalars s) {
  adam_chunk<true>(p, g, m, v, n, s);
}
void adam_chunk_coupled(float* p, const float* g, float* m, float* v, int64_t n, AdamScalars s) {
  adam_chunk<false>(p, g, m, v, n, s);
}
#endif

}  // namespace

void fused_adam_step(float* param, const float* grad, float* exp_avg, float* exp_avg_sq,
                     int64_t n, const AdamScalars& s) {
  // Large grains: the loop is memory-bound and small parameters are not worth a thread.
  at::parallel_for(0, n, 1 << 16, [&](int64_t begin, int64_t end) {
    const int64_t len = end - begin;
    if (s.decoupled)
      adam_chunk_decoupled(param + begin, grad + begin, exp_avg + begin, exp_avg_sq + begin, len, s);
    else
      adam_chunk_coupled(param + begin, grad + begin, exp_avg + begin, exp_avg_sq + begin, len, s);
  });
}

}  // namespace runner
