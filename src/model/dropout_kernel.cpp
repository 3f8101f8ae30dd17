#include "model/dropout_kernel.h"
#include "util/kernel_isa.h"

#include <ATen/Parallel.h>

#include <cmath>

namespace runner {
namespace {

// Stamped out per instruction set (util/kernel_isa.h); the products are exact
// (x scale or x 0), so every variant gives the same values.
#define RUNNER_DROPOUT_LOOP(NAME, TARGET)                                                   \
  TARGET void NAME(const float* in, float* out, int64_t begin, int64_t end, DropoutMask mask, \
                   float scale) {                                                         \
    for (int64_t i = begin; i < end; ++i)                                                 \
      out[i] = in[i] * (dropout_keeps(mask, i) ? scale : 0.0f);    \
  }
RUNNER_DROPOUT_LOOP(apply_float_avx512, RUNNER_TARGET_AVX512)
RUNNER_DROPOUT_LOOP(apply_float_avx2, RUNNER_TARGET_AVX2)
RUNNER_DROPOUT_LOOP(apply_float_generic, RUNNER_TARGET_GENERIC)
#undef RUNNER_DROPOUT_LOOP

// The integer hash vectorises where the CPU has wide vectors; the factors are
// exact (scale or 0), so every variant gives the same values.
#define RUNNER_DROPOUT_ROW(NAME, TARGET)                                                     \
  TARGET void NAME(DropoutMask mask, uint64_t row_base, const int64_t* columns, int64_t n, \
                   float scale, float* keep) {                                             \
    for (int64_t j = 0; j < n; ++j)                                                        \
      keep[j] = dropout_keeps(mask, row_base + uint64_t(columns[j])) ? scale : 0.0f;       \
  }
RUNNER_DROPOUT_ROW(row_avx512, RUNNER_TARGET_AVX512)
RUNNER_DROPOUT_ROW(row_avx2, RUNNER_TARGET_AVX2)
RUNNER_DROPOUT_ROW(row_generic, RUNNER_TARGET_GENERIC)
#undef RUNNER_DROPOUT_ROW

using RowLoop = void (*)(DropoutMask, uint64_t, const int64_t*, int64_t, float, float*);

RowLoop row_loop() {
  switch (kernel_isa()) {
    case KernelIsa::Avx512: return row_avx512;
    case KernelIsa::Avx2: return row_avx2;
    case KernelIsa::Generic: break;
  }
  return row_generic;
}

using FloatLoop = void (*)(const float*, float*, int64_t, int64_t, DropoutMask, float);

FloatLoop apply_float() {
  switch (kernel_isa()) {
    case KernelIsa::Avx512: return apply_float_avx512;
    case KernelIsa::Avx2: return apply_float_avx2;
    case KernelIsa::Generic: break;
  }
  return apply_float_generic;
}

// bf16 * bf16 as ATen computes it: both widened to float, the product rounded
// to nearest even (c10::BFloat16's conversion).
void apply_bf16(const c10::BFloat16* in, c10::BFloat16* out, int64_t begin, int64_t end,
                DropoutMask mask, float scale) {
  for (int64_t i = begin; i < end; ++i) {
    const float noise = dropout_keeps(mask, i) ? scale : 0.0f;
    out[i] = c10::BFloat16(static_cast<float>(in[i]) * noise);
  }
}

constexpr int64_t kGrain = 1 << 15;

}  // namespace

DropoutMask dropout_mask(uint64_t seed, double p) {
  return {seed, static_cast<uint32_t>(std::llround(p * double(1 << 24)))};
}

void dropout_row_factors(const DropoutMask& mask, uint64_t row_base, const int64_t* columns, int64_t n,
                         float scale, float* keep) {
  static const RowLoop loop = row_loop();
  loop(mask, row_base, columns, n, scale, keep);
}

void dropout_apply(const float* in, float* out, int64_t n, const DropoutMask& mask, float scale) {
  const FloatLoop loop = apply_float();
  at::parallel_for(0, n, kGrain, [&](int64_t begin, int64_t end) {
    loop(in, out, begin, end, mask, scale);
  });
}

void dropout_apply(const c10::BFloat16* in, c10::BFloat16* out, int64_t n, const DropoutMask& mask,
                   c10::BFloat16 scale) {
  const float widened = scale;
  at::parallel_for(0, n, kGrain, [&](int64_t begin, int64_t end) {
    apply_bf16(in, out, begin, end, mask, widened);
  });
}

}  // namespace runner
