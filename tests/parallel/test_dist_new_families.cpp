// RoBERTa, DeBERTa-v3 and ModernBERT under data parallelism: `runner launch`
// with 2 workers x batch 8 trains a width-32, two-layer model of each family
// from the same seeded init like one worker x batch 16 (the shards interleave,
// so each step averages the gradients of the same 16 pairs), dropout off: the
// same losses and the same final weights up to float summation order.
#include "dist_runs.h"
#include "new_family_cases.h"
#include "traced_runs.h"

#include "catch.h"

#include <cmath>
#include <filesystem>
#include <fstream>

namespace {

using FamilyCase = runner::test::NewFamilyCase;
const auto& kCases = runner::test::kNewFamilyCases;

constexpr double kLr = 1e-3;
constexpr int kSteps = 4;

std::string write_recipe(const std::string& dir, const FamilyCase& c) {
  const std::string tok = runner::test::golden_tokenizer_folder(dir, c.tokenizer);
  const std::string path = dir + "/recipe.toml";
  std::ofstream(path) << "[run]\nname = \"fam\"\nseed = 5\ndevice = \"cpu\"\n"
                      << "[data]\ndataset = \"glue/mrpc\"\nmax_length = 48\nmax_train_examples = 64\n"
                      << "max_eval_examples = 64\neval_batch_size = 32\n"
                      << "[tokenizer]\npath = \"" << tok << "\"\n"
                      << "[model]\ntype = \"" << c.type << "\"\npreset = \"" << c.preset << "\"\n"
                      << "hidden_size = 32\nnum_hidden_layers = 2\nnum_attention_heads = 4\nintermediate_size = 64\n"
                      << "classifier_dropout = 0.0\n"
                      << (std::string(c.type) == "modernbert" ? "" : "hidden_dropout_prob = 0.0\nattention_probs_dropout_prob = 0.0\n")
                      << "[optimizer]\nlr = " << kLr << "\n[train]\nepochs = 1\nlog_every = 1\n";
  return path;
}

}  // namespace

// Equal up to float summation order, judged by equivalence.h: losses, every
// step's gradients and the final weights no farther from the single run than
// its own accumulation variant is, times kNoiseRatio.
TEST_CASE("roberta, deberta-v3 and modernbert: 2 workers x batch 8 train like 1 worker x batch 16",
          "[parallel][new_families]") {
  for (const auto& c : kCases) {
    INFO(c.type);
    const std::string root = runner::test::tmp_dir(std::string("dist_family_") + c.type);
    const runner::test::TracedRun spec{write_recipe(root, c), "fam", kSteps};
    const auto single = runner::test::traced_run(spec, root + "/one", false);
    const auto reference = runner::test::traced_run(spec, root + "/accum", false, 2);
    const auto two = runner::test::traced_run(spec, root + "/two", true);
    runner::test::EquivalenceCheck check;
    check.compare_runs(single, reference, two, 16);
    INFO(runner::test::joined(check.violations()));
    CHECK(check.violations().empty());
    CHECK(check.compared() > 3 * single.weights.size());
    WARN(c.type << ": the 2-worker run's largest distance is " << check.worst_ratio()
                << " x the accumulation run's");

    // One worker's gradients 1 + 1e-4 of what they should be: the check must see it.
    if (&c != &kCases[0]) continue;
    const auto mutated =
        runner::test::traced_run(spec, root + "/mutated", true, 1, "RUNNER_TEST_GRADIENT_SCALE=1:1.0001");
    runner::test::EquivalenceCheck caught;
    caught.compare_runs(single, reference, mutated, 16);
    CHECK(!caught.violations().empty());
  }
}
