// Counts derived from the recipe (steps per epoch, total steps, batches) for
// hostile values: no overflow into negative or zero work, and
// no evaluation of an empty split called "best".
#include "optim/optimizer.h"
#include "optim/scheduler.h"
#include "registry/registry.h"
#include "train/train_options.h"
#include "train/trainer.h"
#include "util/diagnostic.h"

#include "run_files.h"
#include "shared.h"
#include "toy_classifier.h"

#include "catch.h"

#include <climits>
#include <filesystem>
#include <fstream>

using namespace runner;
namespace fs = std::filesystem;

namespace {

class Linear : public test::ToyClassifierBase {
 public:
  Linear() { weight_ = register_parameter("weight", torch::tensor({{0.5f}, {-0.25f}})); }
  ModelOutput forward(const ModelBatch& batch, const ForwardOptions&) override {
    torch::Tensor x = batch.input_ids.to(torch::kFloat32).mean(1, true);
    return classify(torch::nn::functional::linear(x, weight_), batch);
  }

 private:
  torch::Tensor weight_;
};

TrainBatch batch(int id) {
  TrainBatch b;
  b.tensors.input_ids = torch::tensor({{id, id + 1}}).to(torch::kInt64);
  b.tensors.token_type_ids = torch::zeros({1, 2}, torch::kInt64);
  b.tensors.attention_mask = torch::ones({1, 2}, torch::kInt64);
  b.tensors.labels = torch::tensor({int64_t{id % 2}});
  b.example_ids = {"toy/" + std::to_string(id)};
  b.examples = 1;
  b.tokens = 2;
  return b;
}

std::unique_ptr<Trainer> make_trainer(TrainerConfig cfg, std::shared_ptr<Linear> model, BatchSource& data) {
  std::vector<NamedParameter> params;
  for (auto& p : model->named_parameters()) params.push_back({p.key(), p.value()});
  nlohmann::json opt = {{"lr", 0.1}, {"weight_decay", 0.0}, {"no_decay", nlohmann::json::array()},
                        {"momentum", 0.0}, {"dampening", 0.0}, {"nesterov", false}};
  auto optimizer = registry().factory<OptimizerFactory>(Kind::Optimizer, "sgd")(opt, params);
  auto schedule = [](long long total) {
    return registry().factory<SchedulerFactory>(Kind::Scheduler, "constant")(nlohmann::json::object(),
                                                                              ScheduleParams{total, 0, 0.1});
  };
  cfg.max_grad_norm = 0;
  return std::make_unique<Trainer>(cfg, model, std::move(optimizer), schedule, data, nullptr,
                                   std::vector<Logger*>{});
}

}  // namespace

TEST_CASE("a grad_accum beyond the epoch makes each epoch one optimizer step", "[train][counts]") {
  // (n + grad_accum - 1) / grad_accum overflowed to a negative count: 0 steps, "completed".
  FixedBatches data({batch(1), batch(2), batch(3)});
  TrainerConfig cfg = train_options().defaults();
  cfg.epochs = 2;
  cfg.grad_accum = LLONG_MAX;
  auto model = std::make_shared<Linear>();
  torch::Tensor before = model->parameters()[0].clone();
  auto trainer = make_trainer(cfg, model, data);
  CHECK(trainer->steps_per_epoch() == 1);
  CHECK(trainer->total_steps() == 2);
  TrainOutcome out = trainer->train();
  CHECK(out.global_step == 2);
  CHECK(out.samples == 6);
  CHECK_FALSE(torch::equal(before, model->parameters()[0]));
}

TEST_CASE("epochs whose step count does not fit are refused, naming train.epochs", "[train][counts]") {
  FixedBatches data({batch(1), batch(2)});
  TrainerConfig cfg = train_options().defaults();
  cfg.epochs = 1e300;  // the recipe's bound stops this; a caller of Trainer gets the same answer
  try {
    make_trainer(cfg, std::make_shared<Linear>(), data);
    FAIL("1e300 epochs were accepted");
  } catch (const InputError& e) {
    CHECK(e.diagnostic().key_path == "train.epochs");
    CHECK_THAT(e.diagnostic().message, Catch::Contains("more than a run can count"));
  }
}

namespace {

// A tsv dataset of four training rows and the given dev file, and a recipe on it.
std::string tsv_run_dir(const std::string& name, const std::string& dev_text) {
  std::string dir = test::tmp_dir(name);
  fs::create_directories(dir + "/data");
  std::ofstream(dir + "/data/train.tsv") << "text_a\tlabel\na good film\t1\na bad film\t0\nfine\t1\nawful\t0\n";
  std::ofstream(dir + "/data/dev.tsv") << dev_text;
  std::ofstream(dir + "/r.toml") << "[run]\nname = \"counts\"\noutput_dir = \"" << dir << "/runs\"\n"
                                 << "loggers = [\"jsonl\"]\n"
                                 << "[data]\ndataset = \"tsv\"\ndir = \"" << dir << "/data\"\nmax_length = 16\n"
                                 << "cache_dir = \"" << dir << "/cache\"\n"
                                 << "[model]\npreset = \"bert-tiny\"\n[train]\nmax_steps = 1\n";
  return dir;
}

}  // namespace

TEST_CASE("an empty dev split is refused before training, naming the split", "[train][counts]") {
  std::string dir = tsv_run_dir("counts_empty_dev", "text_a\tlabel\n");
  auto r = test::run_command(test::runner_exe() + " run " + dir + "/r.toml");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains(dir + "/data/dev.tsv"));
  CHECK_THAT(r.out, Catch::Contains("data.eval_split"));
  CHECK_THAT(r.out, Catch::Contains("split \"dev\" has no examples"));
  CHECK(r.out.find("best") == std::string::npos);
  // Refused before the first step: no run directory is left behind, nor the
  // output folder this run made.
  CHECK_FALSE(fs::exists(dir + "/runs"));
}

TEST_CASE("a batch size beyond every split is one batch, not none", "[train][counts]") {
  // (n + batch_size - 1) / batch_size overflowed: "the training split yields no batches".
  std::string dir = tsv_run_dir("counts_huge_batch", "text_a\tlabel\nnice\t1\n");
  auto r = test::run_command(test::runner_exe() + " run " + dir +
                             "/r.toml --set data.train_batch_size=9223372036854775807");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string summary = test::read_text(test::only_run_dir(dir, "counts") + "/summary.json");
  auto s = nlohmann::json::parse(summary);
  CHECK(s["global_step"] == 1);
  CHECK(s["samples_seen"] == 4);
}
