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
  for (const char* key : {"loss", "examples", "accuracy", "f1", "per_class"}) {
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
  // The per-class tables count every evaluated example once.
  long long counted = 0;
  for (const auto& row : final_eval.at("per_class").at("confusion"))
    for (const auto& n : row) counted += n.get<long long>();
  CHECK(counted == final_eval.at("examples").get<long long>());
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

TEST_CASE("runner evaluate RUN --set applies the evaluation keys and refuses any other by name", "[e2e]") {
  std::string dir = runner::test::tmp_dir("evaluate_set");
  auto r = runner_cmd("", smoke_recipe() + isolated_run_sets(dir) + " --set train.max_steps=4");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string run = only_run_dir(dir);
  // The smoke recipe scores 128 dev pairs; MRPC's dev split has 408.
  CHECK(evaluate_json(run)["examples"] == 128);
  CHECK(evaluate_json(run + " --set data.max_eval_examples=8")["examples"] == 8);
  CHECK(evaluate_json(run + " --set data.max_eval_examples=0")["examples"] == 408);
  CHECK(evaluate_json(run + " --set data.max_eval_examples=16 --set data.eval_batch_size=5")["examples"] == 16);
  nlohmann::json train = evaluate_json(run + " --set data.eval_split=train --set data.max_eval_examples=8");
  CHECK(train["split"] == "train");
  // Any other key is refused by name, never ignored.
  for (const char* set : {"optimizer.lrr=1", "data.dir=/elsewhere", "train.epochs=2", "model.hidden_size=8"}) {
    auto refused = runner_cmd("", "evaluate " + run + " --set " + set);
    INFO(refused.out);
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.out, Catch::Contains(std::string("--set ") + set) &&
                                Catch::Contains("evaluate RUN --set takes only the evaluation keys data.eval_split, "
                                                "data.max_eval_examples and data.eval_batch_size"));
  }
  for (const char* set : {"data.max_eval_examples=-1", "data.max_eval_examples=0x10", "data.eval_batch_size=0",
                          "data.eval_split="}) {
    auto refused = runner_cmd("", "evaluate " + run + " --set " + set);
    INFO(refused.out);
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.out, Catch::Contains("error: data.") && Catch::Contains("expected"));
  }
  // A split the dataset lacks is named as --split, the flag that asked for it.
  auto nosuch = runner_cmd("", "evaluate " + run + " --split nosuch");
  CHECK(nosuch.exit_code == 2);
  CHECK_THAT(nosuch.out, Catch::Contains("--split: GLUE mrpc has no split 'nosuch'"));
  CHECK(nosuch.out.find("data.train_split") == std::string::npos);
  // An empty --split or --checkpoint is refused, not read as the default.
  for (const char* flag : {"--split ''", "--checkpoint ''"}) {
    auto empty = runner_cmd("", "evaluate " + run + " " + flag);
    INFO(empty.out);
    CHECK(empty.exit_code == 2);
    CHECK_THAT(empty.out, Catch::Contains("expected a name, found an empty argument"));
  }
  // A run with --recipe: the run's weights scored on the recipe's data.
  auto with_recipe = runner_cmd("", "evaluate " + run + " --recipe " + smoke_recipe() + " --set data.cache_dir=" +
                                        dir + "/cache --json");
  INFO(with_recipe.out);
  CHECK(with_recipe.exit_code == 0);
  CHECK_THAT(with_recipe.out, Catch::Contains(run + "/final/model.safetensors"));
}
