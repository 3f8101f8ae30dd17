// Token classification (NER) under data parallelism: `runner launch` with 2
// workers x batch 8 trains a tiny BERT tagger like one worker x batch 16. A
// step's loss is the mean over every labelled token of the 16 sentences, so the
// workers must agree on the step's token count before they average: the same
// losses, gradients and final weights up to float summation order, and an
// evaluation that scores each dev sentence once.
#include "dist_runs.h"
#include "traced_runs.h"

#include "catch.h"

#include <filesystem>
#include <fstream>

using runner::test::events;
using runner::test::only_run_dir;

namespace {

constexpr int kSteps = 3;  // 54 train sentences, 16 a step

std::string write_recipe(const std::string& dir) {
  const std::string path = dir + "/recipe.toml";
  std::ofstream(path) << "[run]\nname = \"ner\"\nseed = 5\ndevice = \"cpu\"\n"
                      << "[data]\ndataset = \"conll\"\ndir = \"" << runner::test::source_dir()
                      << "/recipes/smoke/ner\"\nmax_length = 64\neval_batch_size = 8\n"
                      << "[tokenizer]\ntype = \"wordpiece\"\n"
                      << "[model]\ntype = \"bert\"\npreset = \"bert-tiny\"\nhidden_dropout_prob = 0.0\n"
                      << "attention_probs_dropout_prob = 0.0\nclassifier_dropout = 0.0\n"
                      << "[optimizer]\nlr = 2e-3\n[train]\nmax_steps = " << kSteps << "\nlog_every = 1\n";
  return path;
}

}  // namespace

TEST_CASE("token classification: 2 workers x batch 8 train and evaluate like 1 worker x batch 16",
          "[parallel][token]") {
  const std::string root = runner::test::tmp_dir("dist_token");
  const runner::test::TracedRun spec{write_recipe(root), "ner", kSteps};
  const auto single = runner::test::traced_run(spec, root + "/one", false);
  const auto reference = runner::test::traced_run(spec, root + "/accum", false, 2);
  const auto two = runner::test::traced_run(spec, root + "/two", true);
  runner::test::EquivalenceCheck check;
  check.compare_runs(single, reference, two, 16);
  INFO(runner::test::joined(check.violations()));
  CHECK(check.violations().empty());
  CHECK(check.compared() > 3 * single.weights.size());
  WARN("token classification: the 2-worker run's largest distance is " << check.worst_ratio()
                                                                        << " x the accumulation run's");
  // The final evaluation gathers both workers' sentences: every dev sentence once, the same scores.
  const auto a = events(only_run_dir(root + "/one", "ner"), "eval"), b = events(only_run_dir(root + "/two", "ner"), "eval");
  REQUIRE_FALSE(a.empty());
  REQUIRE(a.size() == b.size());
  CHECK(a.back()["examples"] == b.back()["examples"]);
  // Token accuracy and entity F1 count whole tokens and entities: the weights' rounding
  // differences above are far below what moves an argmax on these 16 sentences.
  CHECK(a.back()["token_accuracy"] == b.back()["token_accuracy"]);
  CHECK(a.back()["entity_f1"] == b.back()["entity_f1"]);
}
