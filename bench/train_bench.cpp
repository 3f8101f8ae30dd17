// bench/train: training throughput (samples/s, tokens/s) of the runner's engine
// (Trainer + prefetching batch source + AdamW + schedule + logging) against a
// plain hand-written LibTorch loop (forward, backward, torch::optim::AdamW step)
// over the same model and the same MRPC batches, for the bert-mini and
// bert-base shapes. Prints the runner's overhead over the plain loop.
//
//   train_bench [steps-mini=40] [steps-base=4] [rounds=2]
//
// Both sides use recipes/mrpc_bert_mini.toml's data settings (batch 32, max
// length 128, dynamic padding) with clipping off, so that they do the same math;
// the runner still computes the gradient norm it logs. Each side gets a warm-up,
// then `rounds` alternating timed rounds; the best round of each is reported.
#include "recipe/recipe.h"
#include "run/run_data.h"
#include "run/run_setup.h"
#include "train/trainer.h"
#include "util/diagnostic.h"
#include "util/paths.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>

using namespace runner;

namespace {

using Clock = std::chrono::steady_clock;

struct Rate {
  double samples_per_s = 0, tokens_per_s = 0;
};

struct Shape {
  std::string preset;
  long long steps;
};

struct NullLogger : Logger {
  void log(const nlohmann::json&) override {}
};

Recipe load_bench_recipe(const std::string& preset) {
  RecipeRequest req;
  req.path = source_root() + "/recipes/mrpc_bert_mini.toml";
  req.overrides = {"model.preset=" + preset, "train.max_grad_norm=0", "train.log_every=1000000",
                   "train.eval_each_epoch=false", "scheduler.warmup_ratio=0.06"};
  RecipeLoad load = load_recipe(req, registry());
  if (!load.recipe) throw std::runtime_error(format_all(load.diags));
  return *load.recipe;
}

// The plain loop: what a user would write by hand with LibTorch.
Rate plain_loop(SequenceClassifier& model, const std::vector<TrainBatch>& batches, double lr) {
  torch::optim::AdamW opt(model.parameters(), torch::optim::AdamWOptions(lr).weight_decay(0.01));
  model.train();
  long long samples = 0, tokens = 0;
  auto t0 = Clock::now();
  for (const auto& b : batches) {
    opt.zero_grad();
    model.forward(b.tensors).loss.backward();
    opt.step();
    samples += b.examples;
    tokens += b.tokens;
  }
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  return {samples / s, tokens / s};
}

Rate runner_loop(const Recipe& r, std::shared_ptr<SequenceClassifier> model, RunData& data,
                 long long steps) {
  const nlohmann::json d = r.section("data"), o = r.section("optimizer");
  SplitBatchSource source(data.train, data.train_split, train_sampler_config(d, 42), data.padding,
                          torch::kCPU);
  TrainerConfig cfg = trainer_config_from(r.section("train"));
  cfg.max_steps = steps;
  NullLogger quiet;
  Trainer trainer(cfg, model, make_optimizer(o, *model), make_schedule(r.section("scheduler"), o.at("lr")),
                  source, nullptr, {&quiet});
  TrainOutcome out = trainer.train();
  return {out.samples / out.train_seconds,
          static_cast<double>(source.tokens_served()) / out.train_seconds};
}

void bench_shape(const Shape& shape, int rounds) {
  Recipe r = load_bench_recipe(shape.preset);
  RunData data = open_data(r.section("data"), r.section("tokenizer"));
  tokenize_data(data, r.section("data"), [](const nlohmann::json&) {});
  const DatasetInfo& info = data.dataset->info();
  torch::manual_seed(42);
  auto model = make_model(r.section("model"), ModelContext{info.num_labels, info.label_names});
  SplitBatchSource source(data.train, data.train_split, train_sampler_config(r.section("data"), 42),
                          data.padding, torch::kCPU);
  source.start_epoch(0);
  std::vector<TrainBatch> batches;
  for (long long i = 0; i < shape.steps; ++i) batches.push_back(source.batch(i));
  double lr = r.section("optimizer").at("lr");
  std::vector<TrainBatch> warm(batches.begin(), batches.begin() + 1);
  plain_loop(*model, warm, lr);
  runner_loop(r, model, data, 1);
  Rate best_plain, best_runner;
  for (int i = 0; i < rounds; ++i) {
    Rate p = plain_loop(*model, batches, lr);
    Rate q = runner_loop(r, model, data, shape.steps);
    if (p.samples_per_s > best_plain.samples_per_s) best_plain = p;
    if (q.samples_per_s > best_runner.samples_per_s) best_runner = q;
  }
  double overhead = best_plain.samples_per_s / best_runner.samples_per_s - 1.0;
  fmt::print("{:<10} {:>5} {:>6} | plain loop {:>8.1f} samples/s {:>9.0f} tokens/s | runner {:>8.1f} "
             "samples/s {:>9.0f} tokens/s | overhead {:+.2f}% ({})\n",
             shape.preset, 32, shape.steps, best_plain.samples_per_s, best_plain.tokens_per_s,
             best_runner.samples_per_s, best_runner.tokens_per_s, overhead * 100.0,
             overhead < 0.03 ? "under the 3% target" : "OVER the 3% target");
}

}  // namespace

int main(int argc, char** argv) {
  long long steps_mini = argc > 1 ? std::atoll(argv[1]) : 40;
  long long steps_base = argc > 2 ? std::atoll(argv[2]) : 4;
  int rounds = argc > 3 ? std::atoi(argv[3]) : 2;
  int threads = apply_thread_setting(nlohmann::json::object());
  fmt::print("bench/train: MRPC train batches of 32 (max length 128, dynamic padding), {} threads, "
             "best of {} rounds\n",
             threads, rounds);
  fmt::print("{:<10} {:>5} {:>6}\n", "shape", "batch", "steps");
  bench_shape({"bert-mini", steps_mini}, rounds);
  bench_shape({"bert-base", steps_base}, rounds);
  return 0;
}
