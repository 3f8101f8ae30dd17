#include "toy_ranks.h"

#include "toy_classifier.h"

#include "parallel/process_group.h"
#include "optim/scheduler.h"
#include "registry/registry.h"
#include "train/logger.h"
#include "train/trainer.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <thread>

namespace runner::test {

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

namespace {

// A two-layer classifier over each example's three input ids, initialised from
// a fixed formula (the global RNG is shared by the rank threads).
class ToyNet : public ToyClassifierBase {
 public:
  ToyNet() {
    w1_ = register_parameter("hidden_weight", fixed({6, 3}, 0.7));
    b1_ = register_parameter("hidden_bias", fixed({6}, 1.9));
    w2_ = register_parameter("out_weight", fixed({2, 6}, 2.3));
    b2_ = register_parameter("out_bias", fixed({2}, 0.4));
  }
  ModelOutput forward(const ModelBatch& batch, const ForwardOptions&) override {
    torch::Tensor x = batch.input_ids.to(torch::kFloat32) / 10.0;
    torch::Tensor h = torch::tanh(torch::nn::functional::linear(x, w1_, b1_));
    return classify(torch::nn::functional::linear(h, w2_, b2_), batch);
  }

 private:
  static torch::Tensor fixed(std::vector<int64_t> shape, double phase) {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return (torch::sin(torch::arange(n, torch::kFloat32) * 1.3 + phase) * 0.5).reshape(shape);
  }
  torch::Tensor w1_, b1_, w2_, b2_;
};

struct Capture : Logger {
  std::vector<nlohmann::json> events;
  void log(const nlohmann::json& e) override { events.push_back(e); }
};

std::vector<NamedParameter> named(torch::nn::Module& m) {
  std::vector<NamedParameter> out;
  for (auto& p : m.named_parameters()) out.push_back({p.key(), p.value()});
  return out;
}

// AdamW at a constant lr over `params`; one optimizer step per batch.
ToyRunResult train(const std::vector<TrainBatch>& batches, const ToyRunOptions& o,
                   std::shared_ptr<DistContext> ctx) {
  auto model = std::make_shared<ToyNet>();
  std::vector<NamedParameter> all = named(*model);
  std::unique_ptr<DataParallel> dp;
  std::vector<NamedParameter> stepped = all;
  if (ctx) {
    dp = std::make_unique<DataParallel>(ctx, all, o.shard_optimizer, o.bucket_bytes);
    stepped = owned_parameters(all, dp->owners(), ctx->rank());
  }
  nlohmann::json opt = {{"lr", 0.05}, {"weight_decay", 0.01}, {"no_decay", nlohmann::json::array()},
                        {"betas", {0.9, 0.999}}, {"eps", 1e-8}};
  auto optimizer = registry().factory<OptimizerFactory>(Kind::Optimizer, "adamw")(opt, stepped);
  auto schedule = [](long long total) {
    return registry().factory<SchedulerFactory>(Kind::Scheduler, "constant")(
        nlohmann::json::object(), ScheduleParams{total, 0, 0.05});
  };
  Optimizer* local_optimizer = optimizer.get();  // the trainer owns it
  FixedBatches data(batches);
  Capture capture;
  TrainerConfig cfg = train_options().defaults();
  cfg.epochs = 1;
  cfg.log_every = 1;
  cfg.max_grad_norm = o.max_grad_norm;
  cfg.nan_policy = o.nan_policy;
  Trainer trainer(cfg, model, std::move(optimizer), schedule, data, nullptr, {&capture});
  if (dp) trainer.set_parallel(dp.get());
  TrainOutcome outcome = trainer.train();
  ToyRunResult r;
  for (const auto& p : all) {
    r.parameters.push_back(p.tensor.detach().clone());
    r.parameter_names.push_back(p.name);
  }
  for (const auto& entry : local_optimizer->state())  // "<param>/exp_avg" ...
    r.optimizer_state_parameters.insert(entry.first.substr(0, entry.first.rfind('/')));
  if (dp) {
    r.owners = dp->owners();
    r.collectives = dp->collective_counts();
  }
  r.events = capture.events;
  r.global_step = outcome.global_step;
  r.samples = outcome.samples;
  return r;
}

}  // namespace

TrainBatch toy_batch(int step, int global, int rank, int world, bool poisoned) {
  const int share = global / world;
  std::vector<int64_t> ids, labels;
  TrainBatch b;
  for (int j = rank * share; j < (rank + 1) * share; ++j) {
    int e = step * global + j;
    for (int k = 0; k < 3; ++k) ids.push_back((e * 7 + k * 5) % 11 + 1);
    labels.push_back((e * 3) % 5 < 2 ? 1 : 0);
    b.example_ids.push_back("toy/" + std::to_string(e));
  }
  const int64_t sign = poisoned ? -1 : 1;
  b.tensors.input_ids = torch::tensor(ids).reshape({share, 3}) * sign;
  b.tensors.token_type_ids = torch::zeros({share, 3}, torch::kInt64);
  b.tensors.attention_mask = torch::ones({share, 3}, torch::kInt64);
  b.tensors.labels = torch::tensor(labels);
  b.examples = share;
  b.tokens = share * 3;
  return b;
}

ToyRunResult train_toy(const std::vector<TrainBatch>& batches, const ToyRunOptions& options) {
  return train(batches, options, nullptr);
}

std::vector<ToyRunResult> train_toy_ranks(const std::vector<std::vector<TrainBatch>>& per_rank,
                                          const ToyRunOptions& options) {
  const int world = static_cast<int>(per_rank.size());
  const int port = free_port();
  std::vector<ToyRunResult> results(per_rank.size());
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r)
    threads.emplace_back([&, r] {
      try {
        WorkerEnv env;
        env.rank = env.local_rank = r;
        env.world_size = env.local_world_size = world;
        env.master_port = port;
        auto ctx = std::make_shared<DistContext>(env, nlohmann::json{{"backend", "gloo"}, {"timeout_s", 60}},
                                                 torch::Device(torch::kCPU));
        results[static_cast<size_t>(r)] = train(per_rank[static_cast<size_t>(r)], options, ctx);
        ctx->barrier("finishing the test");
      } catch (const std::exception& e) {
        results[static_cast<size_t>(r)].error = e.what();
      }
    });
  for (auto& t : threads) t.join();
  return results;
}

}  // namespace runner::test
