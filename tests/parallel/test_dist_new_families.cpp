// RoBERTa, DeBERTa-v3 and ModernBERT under data parallelism: `runner launch`
// with 2 workers x batch 8 trains a width-32, two-layer model of each family
// from the same seeded init like one worker x batch 16 (the shards interleave,
// so each step averages the gradients of the same 16 pairs), dropout off: the
// same losses and the same final weights up to float summation order.
#include "dist_runs.h"
#include "new_family_cases.h"
#include "toy_ranks.h"

#include "model/model_factory.h"

#include "catch.h"

#include <cmath>
#include <filesystem>
#include <fstream>

using runner::test::events;
using runner::test::only_run_dir;
using runner::test::run_command;

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

std::string sets(const std::string& dir, int per_rank_batch) {
  return " --set run.output_dir=" + dir + "/runs --set run.threads=1 --set data.cache_dir=" + dir + "/cache" +
         " --set data.train_batch_size=" + std::to_string(per_rank_batch);
}

}  // namespace

TEST_CASE("roberta, deberta-v3 and modernbert: 2 workers x batch 8 train like 1 worker x batch 16",
          "[parallel][new_families]") {
  for (const auto& c : kCases) {
    INFO(c.type);
    const std::string root = runner::test::tmp_dir(std::string("dist_family_") + c.type);
    const std::string recipe = write_recipe(root, c);
    auto one = run_command(runner::test::runner_exe() + " run " + recipe + sets(root + "/one", 16));
    INFO(one.out);
    REQUIRE(one.exit_code == 0);
    auto two = run_command(runner::test::runner_exe() + " launch --nproc-per-node 2 --master-port " +
                           std::to_string(runner::test::free_port()) + " " + recipe + sets(root + "/two", 8));
    INFO(two.out);
    REQUIRE(two.exit_code == 0);
    const std::string run1 = only_run_dir(root + "/one", "fam"), run2 = only_run_dir(root + "/two", "fam");
    auto a = events(run1, "train"), b = events(run2, "train");
    REQUIRE(a.size() == size_t(kSteps));
    REQUIRE(b.size() == a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      // The runs differ in the order their gradients are summed: a few fp32
      // roundings per step, the 1e-5 relative of BERT's equivalence (test_dist_training).
      INFO("step " << i + 1 << ": " << a[i]["loss"] << " vs " << b[i]["loss"]);
      CHECK(std::abs(a[i]["loss"].get<double>() - b[i]["loss"].get<double>()) <= 1e-5 * a[i]["loss"].get<double>());
      CHECK(a[i]["effective_batch"] == b[i]["effective_batch"]);
    }
    auto w1 = runner::load_model_folder(run1 + "/final").model->named_parameters();
    auto w2 = runner::load_model_folder(run2 + "/final").model->named_parameters();
    REQUIRE(w1.size() == w2.size());
    // Each step's gradients differ by the summation order (1e-5 relative, as
    // the losses); AdamW's update lr m / sqrt(v) is scale-free, so it moves by
    // at most 2 x 1e-5 of lr per step, 4 steps: 8e-8; and a weight's last
    // rounding is half an ulp, 2^-24 |w|, on either side: 2^-23 |w|.
    constexpr double kUpdates = kSteps * 2 * 1e-5 * kLr;
    double worst = 0;
    for (const auto& p : w1) {
      INFO(p.key());
      const torch::Tensor d = (p.value() - w2[p.key()]).abs();
      const double over = (d - p.value().abs() / (1 << 23)).max().item<double>();
      CHECK(over <= kUpdates);
      worst = std::max(worst, d.max().item<double>());
    }
    WARN(c.type << ": largest weight difference " << worst);
  }
}
