// LoRA under data parallelism: `runner launch` with 2 workers x batch 8 trains
// the adapters and the classifier of a tiny BERT like one worker x batch 16 (the
// frozen base has no gradient to exchange): the same losses, gradients and
// final weights up to float summation order.
#include "dist_runs.h"
#include "equivalence.h"
#include "toy_ranks.h"

#include "model/checkpoint.h"

#include "catch.h"

#include <filesystem>
#include <fstream>

using runner::test::only_run_dir;
using runner::test::run_command;

namespace {

constexpr int kSteps = 4;  // 64 pairs, 16 a step

std::string write_recipe(const std::string& dir) {
  const std::string path = dir + "/recipe.toml";
  std::ofstream(path) << "[run]\nname = \"lora\"\nseed = 5\ndevice = \"cpu\"\n"
                      << "[data]\ndataset = \"glue/mrpc\"\nmax_length = 48\nmax_train_examples = 64\n"
                      << "max_eval_examples = 32\neval_batch_size = 32\n"
                      << "[tokenizer]\npath = \"" << runner::test::shared_dir() << "/models/bert-base-uncased\"\n"
                      << "[model]\ntype = \"bert\"\npretrained = \"" << runner::test::shared_dir()
                      << "/golden/tiny_bert\"\nhidden_dropout_prob = 0.0\nattention_probs_dropout_prob = 0.0\n"
                      << "classifier_dropout = 0.0\n"
                      << "[lora]\nenabled = true\nr = 4\nalpha = 8\n"
                      << "[optimizer]\nlr = 1e-2\n[train]\nepochs = 1\nlog_every = 1\n";
  return path;
}

std::string sets(const std::string& dir, int per_rank_batch, int grad_accum = 1) {
  return " --set run.output_dir=" + dir + "/runs --set run.threads=1 --set data.cache_dir=" + dir + "/cache" +
         " --set data.train_batch_size=" + std::to_string(per_rank_batch) +
         " --set train.grad_accum=" + std::to_string(grad_accum);
}

runner::test::RunTrace traced_run(const std::string& recipe, const std::string& dir, bool launch, int grad_accum = 1) {
  const std::string grads = "RUNNER_TEST_GRADIENT_DIR=" + dir + "/gradients ";
  std::filesystem::create_directories(dir + "/gradients");
  auto r = launch ? run_command(grads + runner::test::runner_exe() + " launch --nproc-per-node 2 --master-port " +
                                std::to_string(runner::test::free_port()) + " " + recipe + sets(dir, 8))
                  : run_command(grads + runner::test::runner_exe() + " run " + recipe +
                                sets(dir, 16 / grad_accum, grad_accum));
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  const std::string run = only_run_dir(dir, "lora");
  runner::test::RunTrace t;
  t.losses = runner::test::step_losses(run);
  t.gradients = runner::test::step_gradients(dir + "/gradients");
  for (const auto& [key, tensor] : runner::read_weights(run + "/final/model.safetensors")) t.weights[key] = tensor;
  REQUIRE(t.losses.size() == size_t(kSteps));
  REQUIRE(t.gradients.size() == size_t(kSteps));
  return t;
}

}  // namespace

TEST_CASE("LoRA: 2 workers x batch 8 train the adapters like 1 worker x batch 16", "[parallel][lora]") {
  const std::string root = runner::test::tmp_dir("dist_lora");
  const std::string recipe = write_recipe(root);
  const auto single = traced_run(recipe, root + "/one", false);
  const auto reference = traced_run(recipe, root + "/accum", false, 2);
  const auto two = traced_run(recipe, root + "/two", true);
  // Only what trains has gradients: the adapters and the new classifier.
  for (const auto& [name, grad] : single.gradients.front())
    CHECK((name.find(".lora_") != std::string::npos || name.rfind("classifier.", 0) == 0));
  runner::test::EquivalenceCheck check;
  check.compare_runs(single, reference, two, 16);
  INFO(runner::test::joined(check.violations()));
  CHECK(check.violations().empty());
  WARN("LoRA: the 2-worker run's largest distance is " << check.worst_ratio() << " x the accumulation run's");
}
