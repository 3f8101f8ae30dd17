// DataParallel inside one process: ranks are threads (tests/parallel/toy_ranks.h)
// training a small classifier through the real Trainer, so that what each rank
// holds and exchanges can be inspected: ZeRO-1's optimizer shards and its
// reduce-scatter traffic, and the NaN decisions (skip, abort) that every rank must share.
#include "toy_ranks.h"

#include "catch.h"

using namespace runner;
using namespace runner::test;

namespace {

constexpr int kSteps = 4, kGlobal = 8, kWorld = 2;

std::vector<TrainBatch> single_batches() {
  std::vector<TrainBatch> out;
  for (int s = 0; s < kSteps; ++s) out.push_back(toy_batch(s, kGlobal, 0, 1));
  return out;
}

// poisoned_rank/poisoned_step: that rank's share of that step gets a NaN loss.
std::vector<std::vector<TrainBatch>> rank_batches(int poisoned_rank = -1, int poisoned_step = -1) {
  std::vector<std::vector<TrainBatch>> out(kWorld);
  for (int r = 0; r < kWorld; ++r)
    for (int s = 0; s < kSteps; ++s)
      out[static_cast<size_t>(r)].push_back(
          toy_batch(s, kGlobal, r, kWorld, r == poisoned_rank && s == poisoned_step));
  return out;
}

std::vector<double> train_losses(const ToyRunResult& r) {
  std::vector<double> out;
  for (const auto& e : r.events)
    if (e["event"] == "train" && e.contains("loss")) out.push_back(e["loss"]);
  return out;
}

void require_ok(const std::vector<ToyRunResult>& ranks) {
  for (const auto& r : ranks) {
    INFO(r.error);
    REQUIRE(r.error.empty());
  }
}

void check_parameters_close(const ToyRunResult& a, const ToyRunResult& b) {
  REQUIRE(a.parameters.size() == b.parameters.size());
  for (size_t i = 0; i < a.parameters.size(); ++i) {
    INFO(a.parameter_names[i] << ": " << a.parameters[i] << " vs " << b.parameters[i]);
    CHECK(torch::allclose(a.parameters[i], b.parameters[i], 1e-5, 1e-7));
  }
}

void check_same_training(const ToyRunResult& single, const std::vector<ToyRunResult>& ranks) {
  for (size_t i = 0; i < single.parameters.size(); ++i)  // the ranks stay in lockstep
    CHECK(torch::equal(ranks[0].parameters[i], ranks[1].parameters[i]));
  check_parameters_close(single, ranks[0]);
  auto a = train_losses(single), b = train_losses(ranks[0]);
  REQUIRE(a.size() == static_cast<size_t>(kSteps));
  REQUIRE(b.size() == a.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(std::abs(a[i] - b[i]) <= 1e-5 * std::abs(a[i]));
}

int64_t elements_of(const ToyRunResult& r, int owner) {
  int64_t n = 0;
  for (size_t i = 0; i < r.parameters.size(); ++i)
    if (owner < 0 || r.owners[i] == owner) n += r.parameters[i].numel();
  return n;
}

}  // namespace

TEST_CASE("ZeRO-1: each rank holds and receives only its own parameters' state and gradients, "
          "and trains like one process", "[parallel][zero]") {
  ToyRunResult single = train_toy(single_batches(), {});
  REQUIRE(single.error.empty());

  ToyRunOptions shard;
  shard.shard_optimizer = true;
  auto sharded = train_toy_ranks(rank_batches(), shard);
  require_ok(sharded);
  check_same_training(single, sharded);
  const int64_t total = elements_of(sharded[0], -1);
  std::set<std::string> covered;
  for (int r = 0; r < kWorld; ++r) {
    const ToyRunResult& res = sharded[static_cast<size_t>(r)];
    std::set<std::string> own;
    for (size_t i = 0; i < res.parameter_names.size(); ++i)
      if (res.owners[i] == r) own.insert(res.parameter_names[i]);
    INFO("rank " << r);
    CHECK(!own.empty());
    CHECK(res.optimizer_state_parameters == own);
    covered.insert(own.begin(), own.end());
    // A reduce-scatter: the rank receives the gradients of its own parameters
    // only (about 1/world of them) and sends the others', never an all-reduce of all.
    CHECK(res.collectives.count("allreduce") == 0);
    REQUIRE(res.collectives.count("alltoall") == 1);
    CHECK(res.collectives.at("alltoall").elements_out == kSteps * (kWorld - 1) * elements_of(res, r));
    CHECK(res.collectives.at("alltoall").elements_out <= kSteps * total * 6 / 10);
    CHECK(res.collectives.at("alltoall").elements_in == kSteps * (total - elements_of(res, r)));
    REQUIRE(res.collectives.count("allgather") == 1);
    CHECK(res.collectives.at("allgather").calls == kSteps);
  }
  CHECK(covered.size() == single.parameter_names.size());
  CHECK(sharded[0].owners == sharded[1].owners);  // every rank computes the same split

  SECTION("without sharding every rank all-reduces every gradient and steps every parameter") {
    auto plain = train_toy_ranks(rank_batches(), {});
    require_ok(plain);
    check_same_training(single, plain);
    for (const auto& res : plain) {
      CHECK(res.optimizer_state_parameters.size() == single.parameter_names.size());
      REQUIRE(res.collectives.count("allreduce") == 1);
      CHECK(res.collectives.at("allreduce").elements_out == kSteps * total);
      CHECK(res.collectives.count("alltoall") == 0);
    }
  }
}

TEST_CASE("the gradient exchange follows the backend: reduce_scatter only where it exists", "[parallel][zero]") {
  CHECK(gradient_exchange(false, "gloo") == GradientExchange::AllReduce);
  CHECK(gradient_exchange(false, "nccl") == GradientExchange::AllReduce);
  CHECK(gradient_exchange(true, "gloo") == GradientExchange::ReduceToOwners);
  CHECK(gradient_exchange(true, "nccl") == GradientExchange::ReduceScatter);
}

TEST_CASE("nan_policy = skip under data parallelism: a NaN on one rank skips the step on every "
          "rank, and the ranks stay in step", "[parallel][nan]") {
  // The same run without the poisoned step is what every rank must end with.
  std::vector<TrainBatch> clean;
  for (int s = 0; s < kSteps; ++s)
    if (s != 1) clean.push_back(toy_batch(s, kGlobal, 0, 1));
  ToyRunOptions options;
  options.nan_policy = NanPolicy::Skip;
  ToyRunResult reference = train_toy(clean, options);
  REQUIRE(reference.error.empty());
  const bool shard = GENERATE(false, true);
  options.shard_optimizer = shard;
  INFO("shard_optimizer = " << shard);
  auto ranks = train_toy_ranks(rank_batches(/*poisoned_rank=*/1, /*poisoned_step=*/1), options);
  require_ok(ranks);
  for (const auto& r : ranks) CHECK(r.global_step == kSteps);
  for (size_t i = 0; i < reference.parameters.size(); ++i)
    CHECK(torch::equal(ranks[0].parameters[i], ranks[1].parameters[i]));
  check_parameters_close(reference, ranks[0]);
  // Rank 0, which writes the logs, says that step 2 was skipped, though its own loss was finite.
  std::vector<nlohmann::json> skips;
  for (const auto& e : ranks[0].events)
    if (e["event"] == "nan_skip") skips.push_back(e);
  REQUIRE(skips.size() == 1);
  CHECK(skips[0]["step"] == 2);
  CHECK(skips[0]["on_another_rank"] == true);
  auto a = train_losses(reference), b = train_losses(ranks[0]);
  REQUIRE(a.size() == b.size());  // the skipped step logs no loss
  for (size_t i = 0; i < a.size(); ++i) CHECK(std::abs(a[i] - b[i]) <= 1e-5 * std::abs(a[i]));
}

TEST_CASE("nan_policy = abort under data parallelism: every rank stops at the NaN's step with "
          "its error, and none waits on a rank that has gone", "[parallel][nan]") {
  ToyRunOptions options;  // nan_policy "abort" is the default
  options.shard_optimizer = GENERATE(false, true);
  INFO("shard_optimizer = " << options.shard_optimizer);
  auto ranks = train_toy_ranks(rank_batches(/*poisoned_rank=*/1, /*poisoned_step=*/1), options);
  REQUIRE(ranks.size() == 2);
  // The rank whose loss was NaN names the examples; the other points to it.
  CHECK_THAT(ranks[1].error, Catch::Contains("at optimizer step 2 (epoch 0, micro-batch 1)") &&
                                 Catch::Contains("examples: ") && Catch::Contains("nan_policy"));
  CHECK_THAT(ranks[0].error, Catch::Contains("not finite on another rank at optimizer step 2") &&
                                 Catch::Contains("nan_policy"));
}

TEST_CASE("samples_seen counts every rank's examples", "[parallel]") {
  ToyRunResult single = train_toy(single_batches(), {});
  auto ranks = train_toy_ranks(rank_batches(), {});
  require_ok(ranks);
  CHECK(single.samples == kSteps * kGlobal);
  for (const auto& r : ranks) CHECK(r.samples == single.samples);
}
