// The step object on its own, on a two-parameter classifier with plain SGD:
// a window of micro-batches makes one update of their mean loss's gradient,
// a non-finite loss is skipped or aborts as train.nan_policy says once the
// step settles, and settle() reads back what the window left on the device.
#include "optim/optimizer.h"
#include "optim/scheduler.h"
#include "registry/registry.h"
#include "train/train_step.h"
#include "util/diagnostic.h"

#include "toy_classifier.h"

#include "catch.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace runner;
using runner::test::toy_batch;

namespace {

constexpr double kLr = 0.1;

// A linear classifier over each example's mean input id.
class ToyClassifier : public test::ToyClassifierBase {
 public:
  ToyClassifier() {
    weight_ = register_parameter("weight", torch::tensor({{0.5f}, {-0.25f}}));
    bias_ = register_parameter("bias", torch::tensor({0.125f, -0.5f}));
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
  size_t count(const std::string& kind) const {
    return std::count_if(events.begin(), events.end(), [&](const auto& e) { return e["event"] == kind; });
  }
};

// Plain SGD (no momentum, no weight decay) at a constant rate, no clipping.
struct StepRig {
  TrainerConfig config = train_options().defaults();
  std::shared_ptr<ToyClassifier> model = std::make_shared<ToyClassifier>();
  Capture capture;
  EventLog events{{&capture}};
  TrainingState state;
  std::unique_ptr<TrainingScheduler> scheduler;
  std::unique_ptr<TrainStep> step;

  StepRig(long long grad_accum, NanPolicy policy) {
    config.grad_accum = grad_accum;
    config.log_every = 100;
    config.max_grad_norm = 0;
    config.nan_policy = policy;
    scheduler = std::make_unique<TrainingScheduler>(config, 10, nullptr);
    std::vector<NamedParameter> params;
    for (auto& p : model->named_parameters()) params.push_back({p.key(), p.value()});
    nlohmann::json opt = {{"lr", kLr},         {"weight_decay", 0.0}, {"no_decay", nlohmann::json::array()},
                          {"momentum", 0.0},   {"dampening", 0.0},    {"nesterov", false}};
    auto sgd = registry().factory<OptimizerFactory>(Kind::Optimizer, "sgd")(opt, params);
    auto constant = [](long long total) {
      return registry().factory<SchedulerFactory>(Kind::Scheduler, "constant")(nlohmann::json::object(),
                                                                              ScheduleParams{total, 0, kLr});
    };
    step = std::make_unique<TrainStep>(config, model, std::move(sgd), constant, *scheduler, state, events);
    step->start(std::chrono::steady_clock::now());
  }
  torch::Tensor param(const std::string& name) { return model->named_parameters()[name].detach().clone(); }
};

float loss_of(ToyClassifier& model, const TrainBatch& b) {
  torch::NoGradGuard no_grad;
  return model.forward(b.tensors, {}).loss.item<float>();
}

}  // namespace

TEST_CASE("a window of two micro-batches makes one SGD update by the gradient of their mean loss",
          "[train][train_step]") {
  StepRig rig(2, NanPolicy::Abort);
  const TrainBatch a = toy_batch(1), b = toy_batch(5);

  // The reference: the same model's loss (a + b) / 2 by autograd, and w - lr * grad by hand.
  ToyClassifier reference;
  torch::Tensor mean_loss = (reference.forward(a.tensors, {}).loss + reference.forward(b.tensors, {}).loss) / 2;
  mean_loss.backward();
  std::map<std::string, torch::Tensor> expected;
  for (auto& p : reference.named_parameters()) expected[p.key()] = p.value().detach() - kLr * p.value().grad();

  const torch::Tensor weight_before = rig.param("weight");
  CHECK_FALSE(rig.step->update(a, 2, false));
  CHECK(torch::equal(rig.param("weight"), weight_before));  // no update before the window closes
  CHECK(rig.state.global_step == 0);
  CHECK(rig.step->update(b, 2, true));
  CHECK(rig.state.global_step == 1);
  CHECK(rig.state.samples_seen == 4);
  // Tolerance: float32 gradients summed from two halves and scaled by the rate, a
  // few roundings of 2^-24 relative each; 1e-6 covers 16 of them.
  for (const auto& [name, want] : expected)
    CHECK(torch::allclose(rig.param(name), want, 1e-6, 1e-7));
}

TEST_CASE("settle reads back the window: the step's mean loss, the rate and the schedule's position",
          "[train][train_step]") {
  StepRig rig(2, NanPolicy::Abort);
  const TrainBatch a = toy_batch(1), b = toy_batch(5);
  ToyClassifier initial;
  const double expected = (static_cast<double>(loss_of(initial, a)) + loss_of(initial, b)) / 2;
  rig.step->update(a, 2, false);
  rig.step->update(b, 2, true);
  CHECK_FALSE(rig.step->settled());
  CHECK(rig.step->unsettled_steps() == 1);
  CHECK(rig.state.scheduler_step == 0);  // known on the device only until the step settles
  rig.step->settle();
  CHECK(rig.step->settled());
  CHECK(rig.state.scheduler_step == 1);
  nlohmann::json log = rig.step->take_log_event(10);
  CHECK(log["event"] == "train");
  CHECK(log["step"] == 1);
  // The same two float32 losses, summed and halved in float64 by both: equal up to float64 rounding.
  CHECK(log["loss"].get<double>() == Approx(expected).epsilon(1e-12));
  CHECK(log["lr"].get<double>() == Approx(kLr).epsilon(1e-12));
  CHECK(log["effective_batch"] == 4);
}

TEST_CASE("under nan_policy skip a non-finite loss leaves the parameters and the schedule as they were",
          "[train][train_step]") {
  StepRig rig(1, NanPolicy::Skip);
  const torch::Tensor weight = rig.param("weight"), bias = rig.param("bias");
  CHECK(rig.step->update(toy_batch(9, true), 1, true));
  CHECK(rig.state.global_step == 1);
  CHECK(torch::equal(rig.param("weight"), weight));
  CHECK(torch::equal(rig.param("bias"), bias));
  CHECK(rig.capture.count("nan_skip") == 0);  // found on the host only when the step settles
  rig.step->settle();
  REQUIRE(rig.capture.count("nan_skip") == 1);
  CHECK(rig.capture.events.back()["step"] == 1);
  CHECK(rig.capture.events.back()["example_ids"] == nlohmann::json({"toy/9", "toy/10"}));
  CHECK(rig.state.scheduler_step == 0);
  // The next finite window updates again.
  rig.step->update(toy_batch(1), 1, true);
  CHECK_FALSE(torch::equal(rig.param("weight"), weight));
}

TEST_CASE("under nan_policy abort the settle after a non-finite loss stops with its step and examples",
          "[train][train_step]") {
  StepRig rig(1, NanPolicy::Abort);
  rig.step->update(toy_batch(1), 1, true);
  rig.step->update(toy_batch(9, true), 1, true);  // no read-back yet: the step goes on
  try {
    rig.step->settle();
    FAIL("a NaN loss did not stop the settle");
  } catch (const InputError& e) {
    std::string m = e.diagnostic().format();
    CHECK_THAT(m, Catch::Contains("optimizer step 2"));
    CHECK_THAT(m, Catch::Contains("toy/9, toy/10"));
    CHECK_THAT(m, Catch::Contains("train.nan_policy"));
  }
}

namespace {

// A linear tagger: each token's input id, as a number, gives its two logits.
class ToyTagger : public test::ToyClassifierBase {
 public:
  ToyTagger() {
    weight_ = register_parameter("weight", torch::tensor({{0.5f}, {-0.25f}}));
    bias_ = register_parameter("bias", torch::tensor({0.125f, -0.5f}));
  }
  ModelOutput forward(const ModelBatch& batch, const ForwardOptions&) override {
    torch::Tensor x = batch.input_ids.to(torch::kFloat32).unsqueeze(-1);
    ModelOutput out;
    out.logits = torch::nn::functional::linear(x, weight_, bias_);
    out.loss = torch::nn::functional::cross_entropy(
        out.logits.reshape({-1, 2}), batch.labels.reshape({-1}),
        torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100));
    return out;
  }

 private:
  torch::Tensor weight_, bias_;
};

TrainBatch tagged_batch(std::vector<int64_t> ids, std::vector<int64_t> labels) {
  TrainBatch b;
  const auto n = static_cast<int64_t>(ids.size());
  b.tensors.input_ids = torch::tensor(ids).reshape({1, n});
  b.tensors.token_type_ids = torch::zeros({1, n}, torch::kInt64);
  b.tensors.attention_mask = torch::ones({1, n}, torch::kInt64);
  b.tensors.labels = torch::tensor(labels).reshape({1, n});
  b.examples = 1;
  b.tokens = n;
  b.labelled_tokens = std::count_if(labels.begin(), labels.end(), [](int64_t l) { return l != -100; });
  return b;
}

}  // namespace

TEST_CASE("a window of token classification micro-batches learns the mean over its labelled tokens",
          "[train][train_step]") {
  StepRig rig(2, NanPolicy::Abort);
  auto tagger = std::make_shared<ToyTagger>();
  std::vector<NamedParameter> params;
  for (auto& p : tagger->named_parameters()) params.push_back({p.key(), p.value()});
  nlohmann::json opt = {{"lr", kLr},       {"weight_decay", 0.0}, {"no_decay", nlohmann::json::array()},
                        {"momentum", 0.0}, {"dampening", 0.0},    {"nesterov", false}};
  auto constant = [](long long total) {
    return registry().factory<SchedulerFactory>(Kind::Scheduler, "constant")(nlohmann::json::object(),
                                                                            ScheduleParams{total, 0, kLr});
  };
  TrainStep step(rig.config, tagger, registry().factory<OptimizerFactory>(Kind::Optimizer, "sgd")(opt, params),
                 constant, *rig.scheduler, rig.state, rig.events);
  step.start(std::chrono::steady_clock::now());
  // One labelled token, then three: a token of the first weighs as much as one of the second.
  const TrainBatch a = tagged_batch({3, 1, 2}, {-100, 1, -100}), b = tagged_batch({2, 1, 4, 1}, {0, 1, -100, 0});

  // The reference: cross-entropy summed over the four labelled tokens, over four, by autograd.
  ToyTagger reference;
  auto sum_of = [&reference](const TrainBatch& t) {
    return reference.forward(t.tensors, {}).loss * static_cast<double>(t.labelled_tokens);
  };
  ((sum_of(a) + sum_of(b)) / 4.0).backward();
  std::map<std::string, torch::Tensor> expected;
  for (auto& p : reference.named_parameters()) expected[p.key()] = p.value().detach() - kLr * p.value().grad();
  // The mean of the two micro-batches' means would step elsewhere.
  ToyTagger means;
  ((means.forward(a.tensors, {}).loss + means.forward(b.tensors, {}).loss) / 2.0).backward();
  CHECK_FALSE(torch::allclose(means.named_parameters()["weight"].grad(), reference.named_parameters()["weight"].grad(),
                              1e-3, 1e-4));

  CHECK_FALSE(step.update(a, 2, false));
  CHECK(step.update(b, 2, true));
  // Tolerance: float32 gradients of two micro-batches, each scaled by its token
  // count, summed and divided by the window's: a few roundings of 2^-24 relative.
  for (const auto& [name, want] : expected)
    CHECK(torch::allclose(tagger->named_parameters()[name].detach(), want, 1e-6, 1e-7));

  // The logged loss is that token mean too: (1 x a's mean + 3 x b's mean) / 4.
  ToyTagger initial;
  const double mean_a = initial.forward(a.tensors, {}).loss.item<double>();
  const double mean_b = initial.forward(b.tensors, {}).loss.item<double>();
  const double token_mean = (mean_a * 1.0 + mean_b * 3.0) / 4.0;
  REQUIRE(std::abs(token_mean - (mean_a + mean_b) / 2.0) > 1e-3);  // the two readings differ here
  step.settle();
  nlohmann::json log = step.take_log_event(10);
  // The same float32 losses weighed and summed in float64 by both: float64 rounding apart.
  CHECK(log["loss"].get<double>() == Approx(token_mean).epsilon(1e-12));
}
