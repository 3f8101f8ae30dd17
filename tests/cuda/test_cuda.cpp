// What only a CUDA build on a GPU can show: NCCL collectives, autocast on CUDA,
// data-parallel gradient averaging and optimizer offload across devices. This
// area exists only in a CUDA build (scripts/build_cuda.sh); the CPU suite
// covers the same mechanisms with Gloo and CPU tensors.
#include "parallel/data_parallel.h"
#include "parallel/optimizer_offload.h"
#include "parallel/process_group.h"
#include "registry/registry.h"
#include "train/autocast.h"

#include "../train/golden_loop.h"

#include "catch.h"

#include <cstdlib>

#include <unistd.h>

using namespace runner;

namespace {

const torch::Device kGpu(torch::kCUDA, 0);

std::shared_ptr<DistContext> one_rank_nccl() {
  WorkerEnv env;
  env.master_port = 20000 + static_cast<int>(getpid() % 20000);
  nlohmann::json topology = {{"backend", "nccl"}, {"timeout_s", 60}};
  return std::make_shared<DistContext>(env, topology, kGpu);
}

std::vector<NamedParameter> gpu_parameters() {
  torch::manual_seed(3);
  std::vector<NamedParameter> out = {{"layer.weight", torch::randn({64, 32}, kGpu)},
                                     {"layer.bias", torch::randn({64}, kGpu)}};
  for (auto& p : out) p.tensor.set_requires_grad(true);
  return out;
}

torch::Tensor loss_of(const std::vector<NamedParameter>& p, int step) {
  torch::manual_seed(100 + step);
  auto x = torch::randn({16, 32}, kGpu);
  return torch::linear(x, p[0].tensor, p[1].tensor).tanh().pow(2).mean();
}

std::unique_ptr<Optimizer> adamw(std::vector<NamedParameter> params) {
  nlohmann::json o = {{"lr", 0.01}, {"weight_decay", 0.1}, {"no_decay", {"bias"}},
                      {"betas", {0.9, 0.999}}, {"eps", 1e-8}};
  return registry().factory<OptimizerFactory>(Kind::Optimizer, "adamw")(o, std::move(params));
}

}  // namespace

TEST_CASE("cuda: NCCL runs the trainer's collectives on CUDA tensors", "[cuda]") {
  REQUIRE(torch::cuda::is_available());
  auto ctx = one_rank_nccl();
  CHECK(ctx->backend() == "nccl");
  auto t = torch::arange(7, torch::TensorOptions(torch::kFloat32).device(kGpu));
  CHECK(torch::equal(ctx->all_reduce(t.clone(), c10d::ReduceOp::SUM, "all-reduce").cpu(), t.cpu()));
  ctx->broadcast({t}, 0, "broadcast");
  auto gathered = ctx->all_gather_varlen(t, "all-gather");
  REQUIRE(gathered.size() == 1);
  CHECK(torch::equal(gathered[0].cpu(), t.cpu()));
  ctx->barrier("barrier");
}

TEST_CASE("cuda: data parallel over NCCL leaves one rank's gradients as they were", "[cuda]") {
  REQUIRE(torch::cuda::is_available());
  auto plain = gpu_parameters(), parallel_params = gpu_parameters();
  loss_of(plain, 0).backward();
  DataParallel dp(one_rank_nccl(), parallel_params, /*shard_optimizer=*/false);
  torch::Tensor loss = loss_of(parallel_params, 0);
  dp.before_backward(loss, true);
  loss.backward();
  dp.after_backward(true);
  for (size_t i = 0; i < plain.size(); ++i) {
    INFO(plain[i].name);
    CHECK(torch::allclose(plain[i].tensor.grad(), parallel_params[i].tensor.grad(), 1e-6, 1e-7));
  }
}

TEST_CASE("cuda: autocast guards run matmuls in fp16 or bf16 and restore fp32", "[cuda]") {
  REQUIRE(torch::cuda::is_available());
  auto a = torch::ones({8, 8}, kGpu);
  {
    AutocastGuard fp16(runner::Precision::Fp16, c10::DeviceType::CUDA);
    CHECK(torch::matmul(a, a).scalar_type() == at::kHalf);
  }
  {
    AutocastGuard bf16(runner::Precision::Bf16, c10::DeviceType::CUDA);
    CHECK(torch::matmul(a, a).scalar_type() == at::kBFloat16);
  }
  CHECK(torch::matmul(a, a).scalar_type() == at::kFloat);
}

TEST_CASE("cuda: optimizer offload steps on the host and follows AdamW on the GPU", "[cuda]") {
  REQUIRE(torch::cuda::is_available());
  auto on_gpu = gpu_parameters(), offloaded_params = gpu_parameters();
  auto plain = adamw(on_gpu);
  OffloadedOptimizer offloaded(offloaded_params, adamw, torch::kCPU);
  for (const auto& m : offloaded.master_weights()) CHECK(m.device().is_cpu());
  for (int step = 0; step < 5; ++step) {
    for (auto* params : {&on_gpu, &offloaded_params}) {
      for (auto& p : *params) p.tensor.mutable_grad() = torch::Tensor();
      loss_of(*params, step).backward();
    }
    plain->step(0.01);
    offloaded.step(0.01);
  }
  for (size_t i = 0; i < on_gpu.size(); ++i) {
    INFO(on_gpu[i].name);
    CHECK(offloaded_params[i].tensor.device().is_cuda());
    CHECK(torch::allclose(on_gpu[i].tensor.cpu(), offloaded_params[i].tensor.cpu(), 1e-5, 1e-6));
  }
  for (const auto& [name, t] : offloaded.state()) {
    INFO(name);
    CHECK(t.device().is_cpu());
  }
}

// fp16 autocast on CUDA trains the model it runs: the golden
// trajectory loop of tests/train/golden_loop.h on the GPU.
namespace {

// fp16 keeps 11 significant bits: a product of two rounded inputs is off by at
// most 2 x 2^-11 relative; tiny_bert's path to a logit crosses 18 such products
// (tests/train/test_mixed_precision.cpp derives the same count for bf16).
constexpr double kFp16LogitRelative = 18 * 2.0 / 2048;

// Accelerate's mixed_precision="fp16" run of the same loop, made on a GPU by
// scripts/golden/mixed_precision_trajectory.py (scripts/cuda_check.sh makes it
// when tests/train/golden has none, and passes its path in RUNNER_FP16_GOLDEN).
nlohmann::json fp16_golden() {
  const char* env = std::getenv("RUNNER_FP16_GOLDEN");
  std::string path = env && *env ? env : test::source_dir() + "/tests/train/golden/trajectory_fp16_cuda.json";
  std::ifstream in(path);
  INFO("no fp16 golden at " << path << ": run scripts/cuda_check.sh, which makes it");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

double relative(double got, double want) { return std::abs(got - want) / std::abs(want); }

}  // namespace

TEST_CASE("cuda: fp16 training follows Accelerate's mixed_precision=\"fp16\" trajectory", "[cuda]") {
  REQUIRE(torch::cuda::is_available());
  const nlohmann::json golden = fp16_golden();
  EvalSet dev = test::golden_dev_set(kGpu);
  test::GoldenData data = test::golden_train_data(8, kGpu);
  auto r = test::run_golden_loop(test::GoldenLoop{8, 1, Precision::Fp16, &dev, kGpu}, data);
  const auto& steps = golden.at("steps");
  REQUIRE(r.train_events.size() == steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto& e = r.train_events[i];
    INFO("step " << i + 1 << ": loss " << e["loss"] << " vs " << steps[i]["loss"] << ", grad norm "
                 << e["grad_norm"] << " vs " << steps[i]["grad_norm_preclip"]);
    CHECK(relative(e.at("loss"), steps[i].at("loss")) <= kFp16LogitRelative);
    // The runner reports the unscaled norm; a step the scaler skipped has none to compare.
    if (!steps[i].value("optimizer_step_skipped", false))
      CHECK(relative(e.at("grad_norm"), steps[i].at("grad_norm_preclip")) <= kFp16LogitRelative);
  }
  REQUIRE(r.eval_events.size() == 1);
  CHECK(relative(r.eval_events[0].at("loss"), golden.at("dev_eval").at("autocast").at("mean_loss")) <=
        kFp16LogitRelative);
}

TEST_CASE("cuda: the fp16 in-training evaluation equals a fresh evaluation of the trained weights",
          "[cuda]") {
  REQUIRE(torch::cuda::is_available());
  EvalSet dev = test::golden_dev_set(kGpu);
  test::GoldenData data = test::golden_train_data(8, kGpu);
  auto r = test::run_golden_loop(test::GoldenLoop{8, 1, Precision::Fp16, &dev, kGpu}, data);
  REQUIRE(r.eval_events.size() == 1);
  auto fresh = test::fresh_copy(*r.model, kGpu);
  nlohmann::json again = test::evaluate_with(fresh, Precision::Fp16, dev);
  INFO("in-training fp16 loss " << r.eval_events[0]["loss"] << ", fresh fp16 evaluation " << again["loss"]);
  // Same weights, batches and precision; cuBLAS may pick another algorithm for
  // a new handle, so the sums may round differently: 2^-10 relative.
  CHECK(relative(again.at("loss"), r.eval_events[0].at("loss")) <= 1.0 / 1024);
}

namespace {

// data.pad_to_multiple_of = 32, as a run on a GPU pads its batches for graphs.
std::vector<TrainBatch> bucketed(std::vector<TrainBatch> batches) {
  for (TrainBatch& b : batches) {
    ModelBatch& t = b.tensors;
    const int64_t len = t.input_ids.size(1), extra = (len + 31) / 32 * 32 - len;
    auto pad = [&](const torch::Tensor& x) { return torch::constant_pad_nd(x, {0, extra}, 0); };
    t = {pad(t.input_ids), pad(t.token_type_ids), pad(t.attention_mask), t.labels, std::nullopt};
  }
  return batches;
}

struct GoldenGpuRun {
  std::vector<nlohmann::json> train, graph_notes;  // the "train" and "cuda_graphs" events
};

// The golden loop in fp32 on the GPU (tiny_bert, padded execution), graphs on or off.
GoldenGpuRun train_golden(CudaGraphs graphs, std::vector<TrainBatch> batches, long long log_every) {
  at::manual_seed(42);
  auto model = test::load_golden_tiny_bert(kGpu);
  test::GoldenLoop loop;
  TrainerConfig cfg = test::golden_trainer_config(loop);
  cfg.cuda_graphs = graphs;
  cfg.eval_every = 0;
  cfg.log_every = log_every;
  test::CaptureEvents events;
  FixedBatches data(std::move(batches));
  Trainer trainer(cfg, model, test::golden_adamw(*model), test::golden_schedule(), data, nullptr, {&events});
  trainer.train();
  return {events.of("train"), events.of("cuda_graphs")};
}

// Graphed against eager, log line by log line. The replayed kernels are the eager
// step's, but cuBLAS may choose other algorithms on the capture stream, so sums may
// round differently: 1e-6 relative is ~8 float32 ulps on each loss; the norm sums
// every gradient, each through the whole backward's products: 1e-5 (~80 ulps).
void check_same_training(const GoldenGpuRun& graphed, const GoldenGpuRun& eager, size_t lines) {
  REQUIRE(eager.train.size() == lines);
  REQUIRE(graphed.train.size() == lines);
  for (size_t i = 0; i < lines; ++i) {
    INFO("log line " << i + 1 << ": " << graphed.train[i] << " vs " << eager.train[i]);
    CHECK(relative(graphed.train[i].at("loss"), eager.train[i].at("loss")) <= 1e-6);
    CHECK(relative(graphed.train[i].at("grad_norm"), eager.train[i].at("grad_norm")) <= 1e-5);
  }
}

}  // namespace

TEST_CASE("cuda: CUDA graphs train as the eager step does", "[cuda]") {
  // 32 steps of 5 examples padded to their longest (up to 8 shapes graphed, the rest eager).
  REQUIRE(torch::cuda::is_available());
  auto batches = [] { return test::golden_batches("mrpc_train.jsonl", 160, 5, kGpu); };
  GoldenGpuRun eager = train_golden(CudaGraphs::Off, batches(), 1);
  GoldenGpuRun graphed = train_golden(CudaGraphs::On, batches(), 1);
  REQUIRE(graphed.graph_notes.size() == 1);
  CHECK(graphed.graph_notes[0]["captured"] == true);
  check_same_training(graphed, eager, 32);
}

TEST_CASE("cuda: graphs of two shapes share one pool and each step keeps its own results", "[cuda]") {
  // Padded to a multiple of 32, the 32 batches of 5 take two shapes: (5, 64) for 11
  // of them and (5, 96) for 21. Each is run eagerly three times, captured on its
  // fourth batch and replayed after, the two interleaved. A log line every 4 steps
  // reads the last step's gradient norm after other steps ran: the graphs share one
  // memory pool, so a later shape's replay may reuse an earlier one's output memory
  // unless StepGraphs hands out copies.
  REQUIRE(torch::cuda::is_available());
  auto batches = [] { return bucketed(test::golden_batches("mrpc_train.jsonl", 160, 5, kGpu)); };
  check_same_training(train_golden(CudaGraphs::On, batches(), 4), train_golden(CudaGraphs::Off, batches(), 4), 8);
}
