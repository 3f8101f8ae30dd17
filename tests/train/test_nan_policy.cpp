// train.nan_policy: "abort" stops with the step and the batch's example ids;
// "skip" drops the window's update (and its schedule step) and goes on.
#include "optim/optimizer.h"
#include "optim/scheduler.h"
#include "registry/registry.h"
#include "train/trainer.h"
#include "util/diagnostic.h"

#include "toy_classifier.h"

#include "catch.h"

#include <cmath>

using namespace runner;
using runner::test::toy_batch;

namespace {

// A linear classifier over each example's mean input id. An example whose ids
// are negative poisons its batch's loss with NaN, as an overflow would.
class ToyClassifier : public test::ToyClassifierBase {
 public:
  ToyClassifier() {
    weight_ = register_parameter("weight", torch::tensor({{0.5f}, {-0.25f}}));
    bias_ = register_parameter("bias", torch::zeros({2}));
  }
  ModelOutput forward(const ModelBatch& batch, const ForwardOptions&) override {
    torch::Tensor x = batch.input_ids.to(torch::kFloat32).mean(1, true);
    return classify(torch::nn::functional::linear(x, weight_, bias_), batch);
  }

 private:
  torch::Tensor weight_, bias_;
};

struct Capture : Logger {
  std::vector<nlohmann::json> events;
  void log(const nlohmann::json& e) override { events.push_back(e); }
};

struct ToyRun {
  std::shared_ptr<ToyClassifier> model = std::make_shared<ToyClassifier>();
  Capture capture;
  std::unique_ptr<FixedBatches> data;
  std::unique_ptr<Trainer> trainer;
};

// AdamW at a constant lr, one optimizer step per batch, a log event every step.
void make_run(ToyRun& run, const std::vector<TrainBatch>& batches, NanPolicy policy) {
  std::vector<NamedParameter> params;
  for (auto& p : run.model->named_parameters()) params.push_back({p.key(), p.value()});
  nlohmann::json opt = {{"lr", 0.1}, {"weight_decay", 0.0}, {"no_decay", nlohmann::json::array()},
                        {"betas", {0.9, 0.999}}, {"eps", 1e-8}};
  auto optimizer = registry().factory<OptimizerFactory>(Kind::Optimizer, "adamw")(opt, params);
  auto schedule = [](long long total) {
    return registry().factory<SchedulerFactory>(Kind::Scheduler, "constant")(
        nlohmann::json::object(), ScheduleParams{total, 0, 0.1});
  };
  run.data = std::make_unique<FixedBatches>(batches);
  TrainerConfig cfg = train_options().defaults();
  cfg.epochs = 1;
  cfg.log_every = 1;
  cfg.max_grad_norm = 0;
  cfg.nan_policy = policy;
  run.trainer = std::make_unique<Trainer>(cfg, run.model, std::move(optimizer), schedule, *run.data,
                                          nullptr, std::vector<Logger*>{&run.capture});
}

}  // namespace

TEST_CASE("nan_policy = abort names the step and the batch's example ids", "[train][nan]") {
  ToyRun run;
  make_run(run, {toy_batch(1, false), toy_batch(5, false), toy_batch(9, true), toy_batch(13, false)},
           NanPolicy::Abort);
  try {
    run.trainer->train();
    FAIL("a NaN loss did not stop training");
  } catch (const InputError& e) {
    std::string m = e.diagnostic().format();
    CHECK_THAT(m, Catch::Contains("optimizer step 3"));
    CHECK_THAT(m, Catch::Contains("toy/9, toy/10"));
    CHECK_THAT(m, Catch::Contains("nan_policy"));
  }
}

TEST_CASE("nan_policy = skip drops the poisoned step's update and schedule step", "[train][nan]") {
  // The skipped window must leave no trace: the same run without the poisoned
  // batch ends with the very same parameters (AdamW's step count included).
  ToyRun poisoned, clean;
  make_run(poisoned, {toy_batch(1, false), toy_batch(5, false), toy_batch(9, true), toy_batch(13, false)},
           NanPolicy::Skip);
  make_run(clean, {toy_batch(1, false), toy_batch(5, false), toy_batch(13, false)}, NanPolicy::Skip);
  TrainOutcome out = poisoned.trainer->train();
  clean.trainer->train();
  CHECK(out.global_step == 4);
  CHECK(poisoned.trainer->capture_state().scheduler_step == 3);
  CHECK(torch::equal(poisoned.model->named_parameters()["weight"], clean.model->named_parameters()["weight"]));
  CHECK(torch::equal(poisoned.model->named_parameters()["bias"], clean.model->named_parameters()["bias"]));

  std::vector<nlohmann::json> skips, train;
  for (const auto& e : poisoned.capture.events) {
    if (e["event"] == "nan_skip") skips.push_back(e);
    if (e["event"] == "train") train.push_back(e);
  }
  REQUIRE(skips.size() == 1);
  CHECK(skips[0]["step"] == 3);
  // The ids are "example_ids": "examples" is a count wherever it appears (eval, train events).
  CHECK(skips[0]["example_ids"] == nlohmann::json({"toy/9", "toy/10"}));
  CHECK_FALSE(skips[0].contains("examples"));
  REQUIRE(train.size() == 4);
  CHECK_FALSE(train[2].contains("loss"));  // no finite loss in that step's interval
  CHECK(train[3].contains("loss"));
}
