// Dropout's mask and scale in one pass, with the mask drawn from a counter-based
// generator: element i's random number is a hash of (seed, i). LibTorch 1.13's
// CPU dropout (without MKL) draws its mask element by element from the shared
// generator under a lock, in bernoulli_, then multiplies twice; on BERT-Mini it
// took an eighth of the training step (bench/step --profile: bernoulli_). The
// hash makes the mask independent of the thread count and lets backward
// recompute it from the seed instead of keeping it.
#pragma once

#include <c10/util/BFloat16.h>

#include <cstdint>

namespace runner {

// Element i is kept when the top 24 bits of its hash are >= keep_threshold
// (= round(p * 2^24)), and then multiplied by scale; else by 0, as torch
// multiplies by a 0/scale noise tensor (so a NaN input stays NaN).
struct DropoutMask {
  uint64_t seed = 0;
  uint32_t keep_threshold = 0;
};

DropoutMask dropout_mask(uint64_t seed, double p);

// out[i] = in[i] * (kept(i) ? scale : 0), over LibTorch's intra-op threads; in
// and out may be the same array.
void dropout_apply(const float* in, float* out, int64_t n, const DropoutMask& mask, float scale);
void dropout_apply(const c10::BFloat16* in, c10::BFloat16* out, int64_t n, const DropoutMask& mask,
                   c10::BFloat16 scale);

}  // namespace runner
