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

// SplitMix64's finaliser over (seed, index): a full-period bijection of the
// counter whose outputs pass BigCrush, cheap enough to vectorise.
inline uint32_t dropout_random24(uint64_t seed, uint64_t index) {
  uint64_t z = seed + (index + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<uint32_t>(z >> 40);
}

// Whether element `index` of the masked tensor is kept.
inline bool dropout_keeps(const DropoutMask& mask, uint64_t index) {
  return dropout_random24(mask.seed, index) >= mask.keep_threshold;
}

// keep[j] = scale when element row_base + columns[j] is kept, else 0, for
// j < n: one row of the padded [L, L] probabilities that packed attention
// drops, its tokens at `columns` of the row. On the calling thread.
void dropout_row_factors(const DropoutMask& mask, uint64_t row_base, const int64_t* columns, int64_t n,
                         float scale, float* keep);

// out[i] = in[i] * (kept(i) ? scale : 0), over LibTorch's intra-op threads; in
// and out may be the same array.
void dropout_apply(const float* in, float* out, int64_t n, const DropoutMask& mask, float scale);
void dropout_apply(const c10::BFloat16* in, c10::BFloat16* out, int64_t n, const DropoutMask& mask,
                   c10::BFloat16 scale);

}  // namespace runner
