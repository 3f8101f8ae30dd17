// A regression under data parallelism: `runner launch` with 2 ranks x batch 4
// trains like 1 rank x batch 8, and the evaluation gathered from both ranks
// (each scored every other batch) reports the scores of every example.
#include "dist_runs.h"
#include "equivalence.h"
#include "toy_ranks.h"
#include "task_files.h"

#include "catch.h"

#include <cmath>

using runner::test::events;
using runner::test::only_run_dir;
using runner::test::run_command;

namespace {

std::string sets(const std::string& dir, int per_rank_batch) {
  return " --set run.output_dir=" + dir + "/runs --set run.threads=1 --set data.cache_dir=" + dir + "/cache" +
         " --set data.train_batch_size=" + std::to_string(per_rank_batch) +
         " --set data.eval_batch_size=" + std::to_string(per_rank_batch) +
         " --set train.log_every=1 --set model.hidden_dropout_prob=0" +
         " --set model.attention_probs_dropout_prob=0 --set model.classifier_dropout=0";
}

}  // namespace

TEST_CASE("a regression on 2 ranks trains and evaluates like 1 rank", "[parallel][problem_types]") {
  std::string root = runner::test::tmp_dir("dist_regression");
  runner::test::write_stsb_like(root + "/data");
  std::string recipe = runner::test::write_task_recipe(root, runner::test::stsb_like_data_lines(root + "/data"));
  auto one = run_command(runner::test::runner_exe() + " run " + recipe + sets(root + "/one", 8));
  INFO(one.out);
  REQUIRE(one.exit_code == 0);
  // The same 8 examples a step as two halves of 4: summation-order noise alone (equivalence.h).
  auto accum = run_command(runner::test::runner_exe() + " run " + recipe + sets(root + "/accum", 4) +
                           " --set train.grad_accum=2");
  INFO(accum.out);
  REQUIRE(accum.exit_code == 0);
  auto two = run_command(runner::test::runner_exe() + " launch --nproc-per-node 2 --master-port " +
                         std::to_string(runner::test::free_port()) + " " + recipe + sets(root + "/two", 4));
  INFO(two.out);
  REQUIRE(two.exit_code == 0);
  auto a = events(only_run_dir(root + "/one", "task"), "eval");
  auto r = events(only_run_dir(root + "/accum", "task"), "eval");
  auto b = events(only_run_dir(root + "/two", "task"), "eval");
  REQUIRE(a.size() == b.size());
  REQUIRE(r.size() == a.size());
  REQUIRE_FALSE(a.empty());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i]["examples"] == 16);
    CHECK(b[i]["examples"] == 16);  // every example's score, none twice
  }
  // Each metric over the evaluations, held to the accumulation run's distance from
  // the single run: a correlation divides by the scores' spread, which magnifies
  // the same rounding in both runs alike. The floor is one rounding per example.
  runner::test::EquivalenceCheck check;
  for (const char* metric : {"loss", "mse", "pearson", "spearman"}) {
    std::vector<double> x, y, z;
    for (size_t i = 0; i < a.size(); ++i) {
      x.push_back(a[i][metric]);
      y.push_back(r[i][metric]);
      z.push_back(b[i][metric]);
    }
    check.compare(std::string("eval ") + metric, torch::tensor(x, torch::kFloat64), torch::tensor(y, torch::kFloat64),
                  torch::tensor(z, torch::kFloat64), 16);
  }
  runner::test::RunTrace one_trace, accum_trace, two_trace;
  one_trace.losses = runner::test::step_losses(only_run_dir(root + "/one", "task"));
  accum_trace.losses = runner::test::step_losses(only_run_dir(root + "/accum", "task"));
  two_trace.losses = runner::test::step_losses(only_run_dir(root + "/two", "task"));
  check.compare_runs(one_trace, accum_trace, two_trace, 8);
  INFO(runner::test::joined(check.violations()));
  CHECK(check.violations().empty());
}
