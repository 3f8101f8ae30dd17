// In-process data parallelism for unit tests: a few ranks as threads of this
// process, each with its own TCPStore/Gloo membership over loopback, training
// a small deterministic classifier through the real Trainer and DataParallel.
// Catch2 assertions are not thread-safe, so each rank returns what it saw and
// the test asserts on the main thread.
#pragma once

#include "parallel/data_parallel.h"
#include "train/batch_source.h"
#include "train/train_options.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace runner::test {

// A port the kernel just handed out, so that concurrent tests do not collide.
int free_port();

struct ToyRunOptions {
  bool shard_optimizer = false;
  NanPolicy nan_policy = NanPolicy::Abort;
  int64_t bucket_bytes = 64;  // a few parameters per bucket, so owners mix within one
  double max_grad_norm = 0.05;  // small enough that every step clips
};

// What one rank (or the single process) ends with.
struct ToyRunResult {
  std::string error;  // what the rank threw, if it did
  std::vector<torch::Tensor> parameters;  // final values, in parameter order
  std::vector<std::string> parameter_names;
  std::set<std::string> optimizer_state_parameters;  // whose entries the optimizer holds
  std::vector<int> owners;
  std::map<std::string, CollectiveCount> collectives;
  std::vector<nlohmann::json> events;
  long long global_step = 0;
  long long samples = 0;
};

// Batch `step` of a run whose global batch is `global` examples; `rank` of
// `world` gets its contiguous share. `poisoned` makes that share's loss NaN.
TrainBatch toy_batch(int step, int global, int rank, int world, bool poisoned = false);

// One process alone.
ToyRunResult train_toy(const std::vector<TrainBatch>& batches, const ToyRunOptions& options);
// `per_rank[r]` are rank r's batches; one thread per rank.
std::vector<ToyRunResult> train_toy_ranks(const std::vector<std::vector<TrainBatch>>& per_rank,
                                          const ToyRunOptions& options);

}  // namespace runner::test
