#include "data/sampler.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

namespace runner {

SamplerKind sampler_from_name(const std::string& name) {
  if (name == "sequential") return SamplerKind::Sequential;
  if (name == "random") return SamplerKind::Random;
  if (name == "group_by_length") return SamplerKind::GroupByLength;
  throw std::invalid_argument("unknown sampler '" + name +
                              "', expected sequential, random or group_by_length");
}

std::vector<int64_t> torch_randperm(int64_t n, uint64_t seed) {
  std::mt19937 engine(static_cast<uint32_t>(seed));
  std::vector<int64_t> p(static_cast<size_t>(std::max<int64_t>(n, 0)));
  std::iota(p.begin(), p.end(), 0);
  // torch's randperm_cpu: swap position i with a draw from [i, n), taken as
  // the 32-bit output modulo the remaining count (bias included, as torch has it).
  for (int64_t i = 0; i + 1 < n; ++i) {
    const auto z = static_cast<int64_t>(engine() % static_cast<uint64_t>(n - i));
    std::swap(p[static_cast<size_t>(i)], p[static_cast<size_t>(i + z)]);
  }
  return p;
}

std::vector<int64_t> seeded_permutation(int64_t n, uint64_t seed, int64_t epoch) {
  return torch_randperm(n, seed + static_cast<uint64_t>(epoch));
}

std::vector<int64_t> length_grouped_order(const std::vector<int64_t>& lengths, int64_t batch_size,
                                          uint64_t seed, int64_t epoch) {
  const auto n = static_cast<int64_t>(lengths.size());
  std::vector<int64_t> order = seeded_permutation(n, seed, epoch);
  // transformers: mega_batch_mult = min(n // (batch_size * 4), 50), at least 1.
  const int64_t mult = std::max<int64_t>(1, std::min<int64_t>(n / (batch_size * 4), 50));
  const int64_t mega = mult * batch_size;
  auto longer = [&](int64_t a, int64_t b) { return lengths[a] > lengths[b]; };
  int64_t longest_group = 0;
  for (int64_t start = 0; start < n; start += mega) {
    auto first = order.begin() + start, last = order.begin() + std::min(n, start + mega);
    std::stable_sort(first, last, longer);  // Python's sorted() is stable
    if (lengths[*first] > lengths[order[static_cast<size_t>(longest_group)]]) longest_group = start;
  }
  if (n > 0) std::swap(order[0], order[static_cast<size_t>(longest_group)]);
  return order;
}

static std::vector<int64_t> global_order(const SamplerConfig& c, const std::vector<int64_t>& lengths,
                                         int64_t epoch) {
  const auto n = static_cast<int64_t>(lengths.size());
  switch (c.kind) {
    case SamplerKind::Sequential: {
      std::vector<int64_t> order(static_cast<size_t>(n));
      std::iota(order.begin(), order.end(), 0);
      return order;
    }
    case SamplerKind::Random: return seeded_permutation(n, c.seed, epoch);
    case SamplerKind::GroupByLength:
      return length_grouped_order(lengths, c.group_batch(), c.seed, epoch);
  }
  return {};
}

std::vector<SampledIndex> epoch_order(const SamplerConfig& c, const std::vector<int64_t>& lengths,
                                      int64_t epoch) {
  if (c.world_size < 1 || c.rank < 0 || c.rank >= c.world_size)
    throw std::invalid_argument("sampler rank " + std::to_string(c.rank) + " is outside world size " +
                                std::to_string(c.world_size));
  std::vector<int64_t> order = global_order(c, lengths, epoch);
  const auto n = static_cast<int64_t>(order.size());
  const int64_t world = c.world_size;
  // DistributedSampler: pad by wrapping around to a multiple of the world
  // size, then take every world-th item.
  const int64_t total = (n + world - 1) / world * world;
  std::vector<SampledIndex> mine;
  mine.reserve(static_cast<size_t>(total / world));
  for (int64_t i = c.rank; i < total; i += world)
    mine.push_back({order[static_cast<size_t>(i % n)], i >= n});
  return mine;
}

}  // namespace runner
