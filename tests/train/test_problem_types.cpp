// Regression and multi-label training: the loss of each problem type worked by
// hand, class weights, and the loss trajectory of Transformers'
// BertForSequenceClassification for each (tests/train/golden/
// problem_type_trajectory.json, scripts/golden/problem_type_trajectory.py).
#include "golden_loop.h"

#include "model/encoder_ops.h"
#include "train/class_weights.h"

#include <cmath>

using namespace runner;
using namespace runner::test;

namespace {

// The targets the golden generator gives an MRPC row (its docstring).
std::vector<float> row_targets(const GoldenRow& r, bool regression) {
  const auto n = static_cast<long long>(r.ids.size());
  if (regression) return {static_cast<float>(r.label) * 2.5f + static_cast<float>(n % 5) * 0.5f};
  return {static_cast<float>(r.label), static_cast<float>(n % 2)};
}

std::vector<TrainBatch> problem_batches(bool regression) {
  std::vector<GoldenRow> rows = golden_rows("mrpc_train.jsonl", 160);
  std::vector<TrainBatch> out;
  for (size_t i = 0; i < rows.size(); i += 8) {
    TrainBatch b = collate(rows, i, i + 8);
    std::vector<float> flat;
    for (size_t r = i; r < i + 8; ++r)
      for (float v : row_targets(rows[r], regression)) flat.push_back(v);
    const int64_t width = regression ? 1 : 2;
    b.tensors.labels = torch::tensor(flat).view({8, width});
    out.push_back(std::move(b));
  }
  return out;
}

// tiny_bert with the generator's head: the two-row classifier for multi-label,
// its row 0 for the regression.
std::shared_ptr<TaskModel> problem_model(bool regression) {
  auto golden = load_golden_tiny_bert();
  nlohmann::json section = {{"type", "bert"},        {"preset", "bert-tiny"},
                            {"hidden_size", 64},     {"num_hidden_layers", 2},
                            {"num_attention_heads", 4}, {"intermediate_size", 128},
                            {"max_position_embeddings", 128}, {"hidden_dropout_prob", 0.0},
                            {"attention_probs_dropout_prob", 0.0}};
  ModelContext context{regression ? 1 : 2, {}, regression ? "regression" : "multi_label_classification"};
  auto model = make_model(section, context);
  model->set_execution(Execution::Padded);
  torch::NoGradGuard no_grad;
  auto from = golden->named_parameters();
  for (auto& p : model->named_parameters()) {
    torch::Tensor src = from[p.key()];
    if (regression && p.key().rfind("classifier.", 0) == 0) src = src.slice(0, 0, 1);
    p.value().copy_(src);
  }
  return model;
}

std::vector<nlohmann::json> run_problem_loop(bool regression) {
  at::set_num_threads(1);
  GoldenData data{FixedBatches(problem_batches(regression)), {}};
  auto model = problem_model(regression);
  Trainer trainer(golden_trainer_config(GoldenLoop{}), model, golden_adamw(*model), golden_schedule(),
                  data.batches, nullptr, std::vector<Logger*>{&data.capture});
  REQUIRE(trainer.total_steps() == 20);
  trainer.train();
  return data.capture.of("train");
}

nlohmann::json problem_golden() {
  std::ifstream in(source_dir() + "/tests/train/golden/problem_type_trajectory.json");
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

// fp32, the same ops in the same order as Transformers: the classification
// trajectory (test_trajectory) agrees to 1e-5 relative over these 20 steps, and
// the regression and BCE heads add one reduction each over at most 16 values
// (16 roundings of 6e-8); 1e-5 keeps the same bound.
void check_against(const std::vector<nlohmann::json>& got, const nlohmann::json& steps) {
  REQUIRE(got.size() == steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    INFO("step " << i + 1);
    CHECK(got[i]["loss"].get<double>() == Approx(steps[i]["loss"].get<double>()).epsilon(1e-5));
    CHECK(got[i]["grad_norm"].get<double>() == Approx(steps[i]["grad_norm_preclip"].get<double>()).epsilon(1e-5));
  }
}

}  // namespace

TEST_CASE("a regression's loss is the MSE of the single logit", "[train][problem_types]") {
  auto logits = torch::tensor({0.5f, -1.0f, 2.0f}).view({3, 1});
  auto targets = torch::tensor({1.0f, 0.0f, 2.5f}).view({3, 1});
  // ((0.5 - 1)^2 + (-1 - 0)^2 + (2 - 2.5)^2) / 3 = (0.25 + 1 + 0.25) / 3 = 0.5
  double got = sequence_classification_loss(logits, targets, 1, "regression").item<double>();
  // float32: three squares and a mean of values ~1 (a few 6e-8 roundings).
  CHECK(std::abs(got - 0.5) < 1e-6);
}

TEST_CASE("a multi-label loss is BCE with logits; class weights are its pos_weight", "[train][problem_types]") {
  auto logits = torch::tensor({0.0f, 2.0f, -1.0f, 0.5f}).view({2, 2});
  auto targets = torch::tensor({1.0f, 0.0f, 0.0f, 1.0f}).view({2, 2});
  auto softplus = [](double x) { return std::log1p(std::exp(x)); };
  // BCE(x, y) = y * softplus(-x) + (1 - y) * softplus(x); the mean over the 4 decisions.
  double plain = (softplus(-0.0) + softplus(2.0) + softplus(-1.0) + softplus(-0.5)) / 4;
  double got = sequence_classification_loss(logits, targets, 2, "multi_label_classification").item<double>();
  // float32: four log1p/exp of values below 3 and a mean (a few 6e-8 roundings of ~1).
  CHECK(std::abs(got - plain) < 1e-6);
  // pos_weight p_k multiplies the positive term of label k.
  auto weights = torch::tensor({3.0f, 0.5f});
  double weighted = (3.0 * softplus(-0.0) + softplus(2.0) + softplus(-1.0) + 0.5 * softplus(-0.5)) / 4;
  double got_weighted =
      sequence_classification_loss(logits, targets, 2, "multi_label_classification", 0.0, weights).item<double>();
  CHECK(std::abs(got_weighted - weighted) < 1e-6);
}

TEST_CASE("class weights weigh cross entropy as torch's CrossEntropyLoss(weight=)", "[train][problem_types]") {
  auto logits = torch::tensor({2.0f, 0.5f, -1.0f, 0.1f, 0.2f, 0.3f}).view({2, 3});
  auto labels = torch::tensor(std::vector<int64_t>{0, 2});
  auto nll = [](std::vector<double> row, size_t y) {
    double z = 0;
    for (double l : row) z += std::exp(l);
    return std::log(z) - row[y];
  };
  // sum_i w[y_i] * nll_i / sum_i w[y_i], with w = (1, 1, 4).
  double expected = (1.0 * nll({2.0, 0.5, -1.0}, 0) + 4.0 * nll({0.1, 0.2, 0.3}, 2)) / (1.0 + 4.0);
  double got = sequence_classification_loss(logits, labels, 3, "", 0.0, torch::tensor({1.0f, 1.0f, 4.0f}))
                   .item<double>();
  // float32: log_softmax and two weighted sums of values ~1 (a few 6e-8 roundings).
  CHECK(std::abs(got - expected) < 1e-6);
}

TEST_CASE("balanced class weights are n_samples / (n_classes * count)", "[train][problem_types]") {
  TokenizedSplit train;
  for (int64_t label : {0, 0, 0, 1, 2, 2}) train.add(Encoding{}, label, 0);
  TrainerConfig cfg = train_options().defaults();
  cfg.class_weighting = ClassWeighting::Balanced;
  // 6 / (3 * 3), 6 / (3 * 1), 6 / (3 * 2): scikit-learn's compute_class_weight("balanced").
  std::vector<double> w = resolve_class_weights(cfg, train, ProblemType::SingleLabel, 3);
  REQUIRE(w.size() == 3);
  CHECK(w[0] == Approx(6.0 / 9.0));
  CHECK(w[1] == Approx(2.0));
  CHECK(w[2] == Approx(1.0));
  // A class with no example has no balanced weight; a list must have one per class.
  CHECK_THROWS_WITH(resolve_class_weights(cfg, train, ProblemType::SingleLabel, 4),
                    Catch::Contains("class 3 has no training example"));
  cfg.class_weighting = ClassWeighting::None;
  cfg.class_weights = {1.0, 2.0};
  CHECK_THROWS_WITH(resolve_class_weights(cfg, train, ProblemType::SingleLabel, 3),
                    Catch::Contains("lists 2 weights, but the dataset has 3 classes"));
  CHECK_THROWS_WITH(resolve_class_weights(cfg, train, ProblemType::Regression, 1),
                    Catch::Contains("this dataset is a regression"));
}

TEST_CASE("balanced multi-label pos_weight is each label's negatives over positives", "[train][problem_types]") {
  TokenizedSplit train;
  train.target_width = 2;
  for (std::vector<float> t : {std::vector<float>{1, 0}, {1, 1}, {0, 0}, {0, 0}}) {
    train.add(Encoding{}, 0, 0);
    train.targets.insert(train.targets.end(), t.begin(), t.end());
  }
  TrainerConfig cfg = train_options().defaults();
  cfg.class_weighting = ClassWeighting::Balanced;
  std::vector<double> w = resolve_class_weights(cfg, train, ProblemType::MultiLabel, 2);
  REQUIRE(w.size() == 2);
  CHECK(w[0] == Approx(1.0));  // 2 negatives / 2 positives
  CHECK(w[1] == Approx(3.0));  // 3 negatives / 1 positive
}

TEST_CASE("a regression trains as Transformers' BertForSequenceClassification", "[train][parity][problem_types]") {
  check_against(run_problem_loop(true), problem_golden()["regression"]);
}

TEST_CASE("a multi-label task trains as Transformers' BertForSequenceClassification",
          "[train][parity][problem_types]") {
  check_against(run_problem_loop(false), problem_golden()["multi_label"]);
}
