// The order in which examples are visited: sequential, seeded random,
// length-grouped (Hugging Face group_by_length), each optionally sharded over
// data-parallel ranks like torch's DistributedSampler. Orders are pure
// functions of (seed, epoch), computed with integer arithmetic only, so every
// machine and every resume sees the same order. The random order is the one
// PyTorch draws for the same seed, so a run visits examples in the order a
// Hugging Face run with that seed does.
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
  // group_by_length sorts mega-batches of 50 x this many examples; 0 means
  // batch_size x world_size. A run resumed on another worker count keeps the
  // value it started with, so that its order does not change.
  int64_t length_group_batch = 0;
  int64_t group_batch() const { return length_group_batch > 0 ? length_group_batch : batch_size * world_size; }
};

struct SampledIndex {
  int64_t index = 0;     // example position in the split
  bool padding = false;  // repeated to give every rank the same count; drop in evaluation
};

// Names the algorithm below in checkpoints, so that a run cannot resume under
// another order (runners before it used a SplitMix64 shuffle).
inline constexpr const char* kRandomOrderName = "torch_randperm";

// torch.randperm(n, generator=torch.Generator().manual_seed(seed)) on the CPU
// (PyTorch 1.13): Fisher-Yates over the generator's mt19937, which is
// std::mt19937 seeded with the low 32 bits of the seed.
std::vector<int64_t> torch_randperm(int64_t n, uint64_t seed);

// The order of `epoch` for a run seeded with `seed`: Accelerate's
// SeedableRandomSampler (which the Trainer's accelerator_config
// use_seedable_sampler turns on) draws torch_randperm(n, seed + epoch).
std::vector<int64_t> seeded_permutation(int64_t n, uint64_t seed, int64_t epoch);

// Hugging Face get_length_grouped_indices over seeded_permutation (Hugging
// Face draws that permutation from the global generator instead):
// mega-batches of 50 batches, each sorted by length (longest first), with the
// longest example moved to the very first batch.
std::vector<int64_t> length_grouped_order(const std::vector<int64_t>& lengths, int64_t batch_size,
                                          uint64_t seed, int64_t epoch);

// This rank's examples for `epoch`, in order.
std::vector<SampledIndex> epoch_order(const SamplerConfig& config,
                                      const std::vector<int64_t>& lengths, int64_t epoch);

}  // namespace runner
