// `runner evaluate` reports what the run reported for the same weights; train.load_best_at_end puts the best
// checkpoint's weights into final/; train.label_smoothing is the loss
// Transformers' LabelSmoother computes.
#include "model/encoder_ops.h"

#include "run_files.h"
#include "shared.h"

#include "catch.h"

#include <cmath>
#include <filesystem>

using runner::test::events;
using runner::test::isolated_run_sets;
using runner::test::only_run_dir;
using runner::test::run_summary;
using runner::test::runner_cmd;
using runner::test::smoke_recipe;

namespace {

nlohmann::json evaluate_json(const std::string& args) {
  auto r = runner_cmd("", "evaluate " + args + " --json");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out.substr(r.out.find('{')));
}

// Loss, examples and every metric equal, as doubles: the same weights, batches,
// threads and summation order give the same bits.
void check_same_evaluation(const nlohmann::json& got, const nlohmann::json& expected) {
  for (const char* key : {"loss", "examples", "accuracy", "f1"}) {
    INFO(key << ": " << got.dump() << " vs " << expected.dump());
    CHECK(got.at(key) == expected.at(key));
  }
}

}  // namespace

TEST_CASE("runner evaluate of a run, a checkpoint and final/ reports the run's own evaluations", "[e2e]") {
  std::string dir = runner::test::tmp_dir("evaluate_run");
  auto r = runner_cmd("", smoke_recipe() + isolated_run_sets(dir) +
                              " --set train.max_steps=8 --set train.eval_every=4 --set train.checkpoint_every=4");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string run = only_run_dir(dir);
  nlohmann::json final_eval = run_summary(run).at("final");
  check_same_evaluation(evaluate_json(run), final_eval);
  check_same_evaluation(evaluate_json(run + "/final --split dev"), final_eval);
  auto evals = events(run, "eval");
  REQUIRE(evals.front()["step"] == 4);
  nlohmann::json at_4 = evaluate_json(run + "/checkpoints/step-00000004");
  check_same_evaluation(at_4, evals.front());
  check_same_evaluation(evaluate_json(run + " --checkpoint 4"), evals.front());
  CHECK(at_4["split"] == "dev");

  // The training split, limited as the run limited it (data.max_train_examples = 256).
  CHECK(evaluate_json(run + " --split train")["examples"] == 256);
  // MRPC's test split has no labels: nothing to score.
  auto test = runner_cmd("", "evaluate " + run + " --split test");
  CHECK(test.exit_code == 2);
  CHECK_THAT(test.out, Catch::Contains("split \"test\" has no labels"));
  // A folder that is no model.
  auto none = runner_cmd("", "evaluate " + dir);
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.out, Catch::Contains("neither a run, a run's checkpoint, nor a model folder"));

  // final/ without its weights: the newest checkpoint (step 8) scored, and said.
  std::filesystem::remove(run + "/final/model.safetensors");
  auto fallback = runner_cmd("", "evaluate " + run);
  INFO(fallback.out);
  CHECK(fallback.exit_code == 0);
  CHECK_THAT(fallback.out, Catch::Contains("final/model.safetensors is missing or not a regular file; scoring the "
                                           "newest checkpoint"));
}

TEST_CASE("runner evaluate of a model folder takes its data from --recipe", "[e2e]") {
  std::string dir = runner::test::tmp_dir("evaluate_folder");
  REQUIRE(runner_cmd("", smoke_recipe() + isolated_run_sets(dir) + " --set train.max_steps=4").exit_code == 0);
  std::string run = only_run_dir(dir);
  std::string copy = dir + "/exported";
  REQUIRE(runner_cmd("", "export " + run + " --checkpoint final --to " + copy).exit_code == 0);
  nlohmann::json got = evaluate_json(copy + " --recipe " + smoke_recipe() + isolated_run_sets(dir));
  check_same_evaluation(got, run_summary(run).at("final"));
}

TEST_CASE("train.load_best_at_end: final/ and the final evaluation are the best checkpoint's", "[e2e]") {
  std::string dir = runner::test::tmp_dir("load_best");
  // Maximising the loss makes the best an early evaluation (the loss falls), not the last.
  std::string sets = isolated_run_sets(dir) +
                     " --set train.max_steps=16 --set train.eval_every=4 --set train.checkpoint_every=0"
                     " --set train.metric_for_best=eval.loss --set train.greater_is_better=true";
  auto r = runner_cmd("", smoke_recipe() + sets + " --set train.load_best_at_end=true");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string run = only_run_dir(dir);
  nlohmann::json summary = run_summary(run);
  long long best_step = summary["best"]["step"];
  REQUIRE(best_step != 16);
  nlohmann::json best_eval;
  for (const auto& e : events(run, "eval"))
    if (e["step"] == best_step) best_eval = e;
  REQUIRE(best_eval.is_object());
  CHECK(summary["final_weights"] == summary["best"]["checkpoint"]);
  check_same_evaluation(summary["final"], best_eval);
  check_same_evaluation(evaluate_json(run), best_eval);  // final/ holds the best weights
  REQUIRE(events(run, "load_best").size() == 1);

  // Without it, final/ is the last step's model.
  std::string plain_dir = runner::test::tmp_dir("load_best_off");
  REQUIRE(runner_cmd("", smoke_recipe() + isolated_run_sets(plain_dir) +
                             sets.substr(isolated_run_sets(dir).size())).exit_code == 0);
  std::string plain = only_run_dir(plain_dir);
  CHECK(run_summary(plain)["final"]["step"] == 16);
  CHECK_FALSE(run_summary(plain).contains("final_weights"));
  CHECK(run_summary(plain)["final"]["loss"] != best_eval["loss"]);
}

TEST_CASE("label smoothing is (1 - e) cross entropy + e times the mean of -log p over the classes", "[train]") {
  // Transformers' LabelSmoother: nll = -log p[label]; smooth = mean over the
  // classes of -log p; loss = (1 - e) nll + e smooth, averaged over the batch.
  // Worked here in double from the logits, apart from LibTorch.
  std::vector<std::vector<double>> logits = {{2.0, 0.5, -1.0}, {0.1, 0.2, 0.3}};
  std::vector<long long> labels = {0, 2};
  const double e = 0.1;
  double expected = 0;
  for (size_t row = 0; row < logits.size(); ++row) {
    double z = 0;
    for (double l : logits[row]) z += std::exp(l);
    double nll = std::log(z) - logits[row][labels[row]], smooth = 0;
    for (double l : logits[row]) smooth += (std::log(z) - l) / 3.0;
    expected += ((1 - e) * nll + e * smooth) / 2.0;
  }
  auto t = torch::tensor({2.0f, 0.5f, -1.0f, 0.1f, 0.2f, 0.3f}).view({2, 3});
  auto y = torch::tensor(std::vector<int64_t>{0, 2});
  double got = runner::sequence_classification_loss(t, y, 3, "", e).item().toDouble();
  // float32: a few roundings of ~1 (6e-8 each) through log_softmax and two sums.
  CHECK(std::abs(got - expected) < 1e-6);
  // e = 0 is plain cross entropy: another loss for these logits.
  double plain = runner::sequence_classification_loss(t, y, 3, "", 0.0).item().toDouble();
  CHECK(std::abs(got - plain) > 1e-3);
}

TEST_CASE("train.label_smoothing is the loss a run reports and evaluate recomputes; 1 is refused", "[e2e]") {
  std::string dir = runner::test::tmp_dir("label_smoothing");
  auto r = runner_cmd("", smoke_recipe() + isolated_run_sets(dir) +
                              " --set train.max_steps=4 --set train.label_smoothing=0.2");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string run = only_run_dir(dir);
  nlohmann::json smoothed = run_summary(run)["final"];
  // Evaluate recomputes it with the recipe's smoothing: the same loss.
  check_same_evaluation(evaluate_json(run), smoothed);
  // The same weights scored without smoothing give a different (plain) loss.
  std::string plain_recipe = smoke_recipe() + isolated_run_sets(dir) + " --set train.label_smoothing=0";
  nlohmann::json plain = evaluate_json(run + "/final --recipe " + plain_recipe);
  CHECK(plain["accuracy"] == smoothed["accuracy"]);
  CHECK(plain["loss"] != smoothed["loss"]);
  auto bad = runner_cmd("", "validate " + smoke_recipe() + " --set train.label_smoothing=1");
  CHECK(bad.exit_code == 2);
}
