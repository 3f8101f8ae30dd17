// LoRA under data parallelism: `runner launch` with 2 workers x batch 8 trains
// the adapters and the classifier of a tiny BERT like one worker x batch 16 (the
// frozen base has no gradient to exchange): the same losses, gradients and
// final weights up to float summation order.
#include "dist_runs.h"
#include "traced_runs.h"

#include "model/checkpoint.h"

#include "catch.h"

#include <filesystem>
#include <fstream>

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

// The adapters are tensors of final/'s file, not parameters of the base's model.
runner::TensorMap final_file(const std::string& final_dir) {
  runner::TensorMap out;
  for (const auto& [key, tensor] : runner::read_weights(final_dir + "/model.safetensors")) out[key] = tensor;
  return out;
}

}  // namespace

TEST_CASE("LoRA: 2 workers x batch 8 train the adapters like 1 worker x batch 16", "[parallel][lora]") {
  const std::string root = runner::test::tmp_dir("dist_lora");
  const runner::test::TracedRun spec{write_recipe(root), "lora", kSteps, final_file};
  const auto single = runner::test::traced_run(spec, root + "/one", false);
  const auto reference = runner::test::traced_run(spec, root + "/accum", false, 2);
  const auto two = runner::test::traced_run(spec, root + "/two", true);
  // Only what trains has gradients: the adapters and the new classifier.
  for (const auto& [name, grad] : single.gradients.front())
    CHECK((name.find(".lora_") != std::string::npos || name.rfind("classifier.", 0) == 0));
  runner::test::EquivalenceCheck check;
  check.compare_runs(single, reference, two, 16);
  INFO(runner::test::joined(check.violations()));
  CHECK(check.violations().empty());
  WARN("LoRA: the 2-worker run's largest distance is " << check.worst_ratio() << " x the accumulation run's");
}
