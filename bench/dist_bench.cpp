// bench/dist: data-parallel step time on this machine, Gloo over loopback.
// The same global batch (16 MRPC-length sequences) is trained
//   (a) by one process with all usable CPUs,
//   (b) by 2 ranks of 8 with half the CPUs each, gradients averaged by the
//       Reducer (25 MB buckets from autograd hooks, as the trainer does),
//   (c) by the same 2 ranks without any gradient exchange,
//   (d) by the same 2 ranks with topology.shard_optimizer's exchange (ZeRO-1),
// and the fraction of (b)'s step spent waiting on communication is reported as
// ((b) - (c)) / (b): (c) shares (b)'s CPU split, so the difference is the
// exchange the backward pass could not hide.
//
//   dist_bench [preset=bert-mini] [steps=20] [seq_len=128]
#include "model/model_factory.h"
#include "parallel/data_parallel.h"
#include "recipe/recipe.h"
#include "registry/registry.h"
#include "run/run_setup.h"
#include "util/paths.h"

#include <fmt/format.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

using namespace runner;

namespace {

using Clock = std::chrono::steady_clock;

struct Config {
  std::string preset = "bert-mini";
  int steps = 20;
  int64_t seq_len = 128;
  int64_t global_batch = 16;
};

std::shared_ptr<TaskModel> bench_model(const Config& c) {
  RecipeRequest req;
  req.path = std::string(RUNNER_SOURCE_ROOT) + "/recipes/smoke/mrpc_smoke.toml";
  req.overrides = {"model.preset=" + c.preset};
  RecipeLoad load = load_recipe(req, registry());
  if (!load.recipe) throw std::runtime_error(format_all(load.diags));
  torch::manual_seed(1);
  return make_model(load.recipe->section("model"), ModelContext{2, {}});
}

ModelBatch synthetic_batch(int64_t batch, int64_t seq_len, int64_t seed) {
  torch::manual_seed(static_cast<uint64_t>(seed));
  ModelBatch b;
  b.input_ids = torch::randint(1000, 30000, {batch, seq_len}, torch::kInt64);
  b.token_type_ids = torch::zeros({batch, seq_len}, torch::kInt64);
  b.attention_mask = torch::ones({batch, seq_len}, torch::kInt64);
  b.labels = torch::randint(0, 2, {batch}, torch::kInt64);
  return b;
}

// Seconds per optimizer step (forward, backward, AdamW over `stepped`, or
// every parameter), after two warm-up steps.
double time_steps(const Config& c, TaskModel& model, const ModelBatch& batch, DataParallel* dp,
                  const std::vector<NamedParameter>& stepped = {}) {
  std::vector<torch::Tensor> tensors;
  for (const auto& p : stepped) tensors.push_back(p.tensor);
  torch::optim::AdamW opt(stepped.empty() ? model.parameters() : tensors, torch::optim::AdamWOptions(1e-4));
  Clock::time_point start;
  for (int i = 0; i < c.steps + 2; ++i) {
    if (i == 2) start = Clock::now();
    ModelOutput out = model.forward(batch);
    if (dp) dp->before_backward(out.loss, true);
    out.loss.backward();
    if (dp) dp->after_backward(true);
    opt.step();
    if (dp) dp->after_optimizer_step();
    model.zero_grad();  // a sharded optimizer's zero_grad would leave the other ranks' parameters
  }
  return std::chrono::duration<double>(Clock::now() - start).count() / c.steps;
}

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// One rank of the 2-process measurements; rank 0 writes its two timings to `report`.
void rank_main(const Config& c, int rank, int port, int threads, FILE* report) {
  torch::set_num_threads(threads);
  WorkerEnv env;
  env.rank = rank;
  env.world_size = 2;
  env.local_rank = rank;
  env.local_world_size = 2;
  env.master_port = port;
  auto ctx = std::make_shared<DistContext>(env, nlohmann::json{{"backend", "gloo"}, {"timeout_s", 120}},
                                           torch::kCPU);
  auto model = bench_model(c);
  broadcast_module(*ctx, *model);
  ModelBatch batch = synthetic_batch(c.global_batch / 2, c.seq_len, 10 + rank);
  DataParallel dp(ctx, named_parameters(*model), false);
  ctx->barrier("bench start");
  double synced = time_steps(c, *model, batch, &dp);
  ctx->barrier("bench middle");
  double local = time_steps(c, *model, batch, nullptr);
  ctx->barrier("bench zero");
  std::vector<NamedParameter> params = named_parameters(*model);
  DataParallel zero(ctx, params, true);
  double sharded = time_steps(c, *model, batch, &zero, owned_parameters(params, zero.owners(), rank));
  ctx->barrier("bench end");
  if (rank == 0) fmt::print(report, "{} {} {} {}\n", synced, local, sharded, dp.bucket_count());
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  if (argc > 1) c.preset = argv[1];
  if (argc > 2) c.steps = std::atoi(argv[2]);
  if (argc > 3) c.seq_len = std::atoll(argv[3]);
  int cpus = usable_cpus();
  torch::set_num_threads(cpus);
  auto model = bench_model(c);
  long long params = 0;
  for (auto& p : model->parameters()) params += p.numel();
  double single = time_steps(c, *model, synthetic_batch(c.global_batch, c.seq_len, 10), nullptr);

  FILE* report = std::tmpfile();
  int port = free_port();
  std::vector<pid_t> kids;
  for (int rank = 0; rank < 2; ++rank) {
    pid_t pid = fork();
    if (pid == 0) {
      rank_main(c, rank, port, std::max(1, cpus / 2), report);
      std::fflush(report);
      _exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t k : kids) waitpid(k, nullptr, 0);
  std::rewind(report);
  double synced = 0, local = 0, sharded = 0;
  size_t buckets = 0;
  if (std::fscanf(report, "%lf %lf %lf %zu", &synced, &local, &sharded, &buckets) != 4) {
    fmt::print(stderr, "the 2-rank measurement failed\n");
    return 1;
  }
  fmt::print("dist bench: {} ({:.1f} M parameters, {:.1f} MB of fp32 gradients in {} buckets), "
             "global batch {} x {} tokens, {} usable CPUs, Gloo over loopback\n",
             c.preset, params / 1e6, params * 4 / 1e6, buckets, c.global_batch, c.seq_len, cpus);
  fmt::print("  1 rank  x batch {:2}: {:7.1f} ms/step\n", c.global_batch, single * 1e3);
  fmt::print("  2 ranks x batch {:2}: {:7.1f} ms/step  (speed-up {:.2f}x)\n", c.global_batch / 2,
             synced * 1e3, single / synced);
  fmt::print("  2 ranks, no exchange: {:7.1f} ms/step\n", local * 1e3);
  fmt::print("  2 ranks, ZeRO-1 (reduce-scatter + all-gather): {:7.1f} ms/step\n", sharded * 1e3);
  fmt::print("  fraction of the 2-rank step waiting on communication: {:.1f}%\n",
             100.0 * std::max(0.0, synced - local) / synced);
  return 0;
}
