// The order in which examples are visited: sequential, seeded random,
// length-grouped (Hugging Face group_by_length), each optionally sharded over
// data-parallel ranks like torch's DistributedSampler. Orders are pure
// functions of (seed, epoch), computed with integer arithmetic only, so every
// machine and every resume sees the same order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace runner {

enum class SamplerKind { Sequential, Random, GroupByLength };
// "sequential", "random", "group_by_length"; throws std::invalid_argument otherwise.
SamplerKind sampler_from_name(const std::string& name);

struct SamplerConfig {
  SamplerKind kind = SamplerKind::Random;
  uint64_t seed = 42;
  int64_t batch_size = 32;  // per rank
  int world_size = 1;
  int rank = 0;
  bool drop_last = false;  // the batch iterator drops an incomplete last batch
};

struct SampledIndex {
  int64_t index = 0;     // example position in the split
  bool padding = false;  // repeated to give every rank the same count; drop in evaluation
};

// A stream of 64-bit values (SplitMix64), identical on every platform.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next();
  // Uniform in [0, bound) without modulo bias (Lemire's method with rejection).
  uint64_t below(uint64_t bound);

 private:
  uint64_t state_;
};

// A uniformly random permutation of 0..n-1 for (seed, epoch): Fisher-Yates.
std::vector<int64_t> seeded_permutation(int64_t n, uint64_t seed, int64_t epoch);

// Hugging Face get_length_grouped_indices over a seeded permutation:
// mega-batches of 50 batches, each sorted by length (longest first), with the
// longest example moved to the very first batch.
std::vector<int64_t> length_grouped_order(const std::vector<int64_t>& lengths, int64_t batch_size,
                                          uint64_t seed, int64_t epoch);

// This rank's examples for `epoch`, in order.
std::vector<SampledIndex> epoch_order(const SamplerConfig& config,
                                      const std::vector<int64_t>& lengths, int64_t epoch);

}  // namespace runner
