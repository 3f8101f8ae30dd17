// Samplers, batches and the resumable batch iterator.
#include "catch.h"

#include "data/batch_iterator.h"
#include "data/dataset.h"
#include "data/token_cache.h"
#include "registry/registry.h"
#include "shared.h"
#include "tokenizer/wordpiece_loader.h"

#include <algorithm>
#include <array>
#include <iostream>
#include <unistd.h>
#include <set>

using namespace runner;

namespace {

std::string order_text(const std::vector<int64_t>& v) {
  std::string s;
  for (int64_t x : v) s += std::to_string(x) + ",";
  return s;
}

std::shared_ptr<const TokenizedSplit> mrpc_train_tokens() {
  static std::shared_ptr<const TokenizedSplit> cached = [] {
    auto d = registry().factory<DatasetFactory>(Kind::Dataset, "glue/mrpc")(
        {{"dir", test::shared_dir() + "/data/glue/MRPC"}});
    auto tok = load_wordpiece({test::shared_dir() + "/models/bert-base-uncased"});
    return std::make_shared<const TokenizedSplit>(
        tokenize_split(d->load_split("train"), *tok, EncodeOptions{}));
  }();
  return cached;
}

}  // namespace

TEST_CASE("the seeded order is the same in another process", "[data]") {
  // A fresh process (this test binary, running a hidden test case) computes
  // the permutation and prints it; it must equal this process's.
  std::vector<int64_t> here = seeded_permutation(1000, 1234, 3);
  std::string exe = "/proc/" + std::to_string(::getpid()) + "/exe";
  auto child = test::run_command(exe + " '[.sampler_child]' -s 2>/dev/null");
  CHECK_THAT(child.out, Catch::Contains("ORDER:" + order_text(here) + ":END"));
  // Also: a different seed or epoch changes the order, and it is a permutation.
  CHECK(seeded_permutation(1000, 1234, 4) != here);
  CHECK(seeded_permutation(1000, 1235, 3) != here);
  std::vector<int64_t> sorted = here;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 1000; ++i) REQUIRE(sorted[static_cast<size_t>(i)] == i);
}

TEST_CASE("sampler child process prints its order", "[.sampler_child]") {
  std::cout << "ORDER:" << order_text(seeded_permutation(1000, 1234, 3)) << ":END\n";
}

// Expected values printed by PyTorch itself (Debian python3-torch 1.13.1, the
// build the golden files come from):
//   /usr/bin/python3 -c "import torch; g = torch.Generator().manual_seed(S);
//                        p = torch.randperm(N, generator=g).tolist(); print(p[:8], p[-3:],
//                        sum(i * v for i, v in enumerate(p)))"
TEST_CASE("the random order is torch.randperm's for the same seed", "[data]") {
  CHECK(torch_randperm(10, 42) == std::vector<int64_t>{2, 6, 1, 8, 4, 5, 0, 9, 3, 7});
  CHECK(torch_randperm(5, 0) == std::vector<int64_t>{4, 0, 1, 3, 2});
  CHECK(torch_randperm(1, 7) == std::vector<int64_t>{0});
  CHECK(torch_randperm(0, 7).empty());
  // manual_seed keeps the low 32 bits: 2**32 + 42 gives seed 42's order.
  CHECK(torch_randperm(10, (1ULL << 32) + 42) == torch_randperm(10, 42));
  auto check_long = [](int64_t n, uint64_t seed, std::vector<int64_t> head, std::vector<int64_t> tail,
                       long long weighted_sum) {
    INFO("n " << n << " seed " << seed);
    std::vector<int64_t> p = torch_randperm(n, seed);
    CHECK(std::vector<int64_t>(p.begin(), p.begin() + 8) == head);
    CHECK(std::vector<int64_t>(p.end() - 3, p.end()) == tail);
    long long sum = 0;
    for (size_t i = 0; i < p.size(); ++i) sum += static_cast<long long>(i) * p[i];
    CHECK(sum == weighted_sum);
  };
  // SST-2 train with seed 42, epoch 0; MRPC train with seed 42, epoch 1.
  check_long(67349, 42, {6677, 49712, 38268, 32909, 23395, 66940, 62886, 11359}, {8208, 58784, 3253},
             76317141694941LL);
  check_long(3668, 43, {2628, 3360, 2605, 1880, 3145, 295, 3378, 1398}, {3071, 2651, 2286},
             12256047921LL);
  // Accelerate's SeedableRandomSampler seeds epoch e with seed + e.
  CHECK(seeded_permutation(3668, 42, 1) == torch_randperm(3668, 43));
}

TEST_CASE("shards are disjoint and complete for 1 to 4 ranks", "[data]") {
  std::vector<int64_t> lengths(103);
  for (size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<int64_t>(i % 17 + 3);
  for (SamplerKind kind : {SamplerKind::Sequential, SamplerKind::Random, SamplerKind::GroupByLength}) {
    for (int world = 1; world <= 4; ++world) {
      std::multiset<int64_t> real;
      size_t per_rank = 0, padding = 0;
      for (int rank = 0; rank < world; ++rank) {
        SamplerConfig c{kind, 7, 4, world, rank, false};
        auto order = epoch_order(c, lengths, 2);
        if (rank == 0) per_rank = order.size();
        REQUIRE(order.size() == per_rank);  // equal length on every rank
        for (const auto& s : order) {
          if (s.padding) ++padding;
          else real.insert(s.index);
        }
      }
      CHECK(real.size() == lengths.size());  // no real example twice
      CHECK(std::set<int64_t>(real.begin(), real.end()).size() == lengths.size());  // all present
      CHECK(padding == per_rank * static_cast<size_t>(world) - lengths.size());
    }
  }
}

namespace {

// The real examples of optimizer step `step` under a split of the global
// batch: micro-batches step*accum ... step*accum + accum - 1 of every rank
// (without the repeats that pad the epoch to a multiple of the ranks).
std::multiset<int64_t> step_examples(SamplerConfig c, int64_t accum, const std::vector<int64_t>& lengths,
                                     int64_t step) {
  std::multiset<int64_t> out;
  for (int rank = 0; rank < c.world_size; ++rank) {
    c.rank = rank;
    auto order = epoch_order(c, lengths, 1);
    const auto first = static_cast<size_t>(step * accum * c.batch_size);
    for (size_t i = first; i < std::min(order.size(), first + static_cast<size_t>(accum * c.batch_size)); ++i)
      if (!order[i].padding) out.insert(order[i].index);
  }
  return out;
}

}  // namespace

TEST_CASE("every split of a global batch of 16 gives each optimizer step the same examples", "[data]") {
  // (world, per-rank batch, accumulation): 2 x 8 x 1 is the reference.
  const std::vector<std::array<int64_t, 3>> splits = {{2, 8, 1}, {1, 8, 2}, {1, 16, 1}, {4, 2, 2}, {2, 4, 2}};
  for (int64_t n : {96, 102}) {  // 102: 4 ranks pad the last step with 2 repeats
    std::vector<int64_t> lengths(static_cast<size_t>(n));
    for (size_t i = 0; i < lengths.size(); ++i) lengths[i] = static_cast<int64_t>(i * 7 % 23 + 3);
    for (SamplerKind kind : {SamplerKind::Sequential, SamplerKind::Random, SamplerKind::GroupByLength}) {
      // A resumed run keeps the length grouping it started with (2 x 8).
      auto config = [&](const std::array<int64_t, 3>& s) {
        SamplerConfig c{kind, 7, s[1], static_cast<int>(s[0]), 0, false};
        c.length_group_batch = 16;
        return c;
      };
      const int64_t steps = (n + 15) / 16;
      for (int64_t step = 0; step < steps; ++step) {
        auto want = step_examples(config(splits[0]), 1, lengths, step);
        if (step + 1 < steps) REQUIRE(want.size() == 16);
        for (const auto& s : splits) {
          INFO("n " << n << ", sampler " << static_cast<int>(kind) << ", split " << s[0] << " x " << s[1]
                    << " x " << s[2] << ", step " << step);
          auto got = step_examples(config(s), s[2], lengths, step);
          CHECK(got == want);
        }
      }
    }
  }
}

TEST_CASE("length grouping cuts padding on MRPC train by more than 1.5x", "[data]") {
  auto split = mrpc_train_tokens();
  auto padded_tokens = [&](SamplerKind kind) {
    BatchIterator it(split, SamplerConfig{kind, 42, 32, 1, 0, false}, PaddingOptions{}, {}, 0);
    int64_t padded = 0;
    while (auto b = it.next()) padded += b->batch_size * b->seq_len - b->real_tokens();
    return padded;
  };
  const int64_t random = padded_tokens(SamplerKind::Random);
  const int64_t grouped = padded_tokens(SamplerKind::GroupByLength);
  const double factor = static_cast<double>(random) / static_cast<double>(grouped);
  std::cout << "MRPC train padding tokens: random " << random << ", group_by_length " << grouped
            << ", factor " << factor << "\n";
  CHECK(factor > 1.5);
}

TEST_CASE("dynamic padding follows DataCollatorWithPadding", "[data]") {
  TokenizedSplit s;
  s.add({{101, 7, 102}, {0, 0, 0}}, 1, 10);
  s.add({{101, 5, 6, 102, 8, 102}, {0, 0, 0, 0, 1, 1}}, 0, 11);
  Batch b = collate(s, {{0, false}, {1, true}}, PaddingOptions{});
  CHECK(b.seq_len == 6);
  CHECK(b.input_ids == std::vector<int64_t>{101, 7, 102, 0, 0, 0, 101, 5, 6, 102, 8, 102});
  CHECK(b.token_type_ids == std::vector<int64_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1});
  CHECK(b.attention_mask == std::vector<int64_t>{1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1});
  CHECK(b.labels == std::vector<int64_t>{1, 0});
  CHECK(b.example_ids == std::vector<int64_t>{10, 11});
  CHECK(b.is_padding == std::vector<uint8_t>{0, 1});
  PaddingOptions multiple;
  multiple.pad_to_multiple_of = 8;
  CHECK(collate(s, {{0, false}}, multiple).seq_len == 8);
  PaddingOptions fixed;
  fixed.to_max_length = true;
  fixed.max_length = 16;
  CHECK(collate(s, {{0, false}}, fixed).seq_len == 16);
}

TEST_CASE("a resumed iterator continues with exactly the same batches", "[data]") {
  auto split = mrpc_train_tokens();
  SamplerConfig c{SamplerKind::Random, 5, 64, 1, 0, false};
  BatchIterator full(split, c, PaddingOptions{}, {}, 2);
  std::vector<std::vector<int64_t>> seen;
  SamplerState mid;
  for (int i = 0; i < 70; ++i) {  // crosses the epoch end (58 batches + end marker)
    auto b = full.next();
    if (i == 40) mid = full.state();
    seen.push_back(b ? b->example_ids : std::vector<int64_t>{});
  }
  BatchIterator resumed(split, c, PaddingOptions{}, mid, 2);
  for (int i = 41; i < 70; ++i) {
    auto b = resumed.next();
    REQUIRE((b ? b->example_ids : std::vector<int64_t>{}) == seen[static_cast<size_t>(i)]);
  }
  CHECK(full.batches_per_epoch() == 58);  // ceil(3668 / 64)
}
