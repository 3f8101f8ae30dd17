// A sweep's [asha] table is refused with its place and the fix when it cannot
// run: a bad number, an unknown key, a budget that the sweep also sets, and a
// recipe whose runs cannot stop, be ranked and continue at the rungs.
#include "catch.h"

#include "shared.h"

#include "sweep/sweep_file.h"

#include <filesystem>
#include <fstream>

using namespace runner;

namespace {

std::string write_sweep(const std::string& body) {
  std::string path = test::tmp_dir("sweep-asha-refusals") + "/s.toml";
  std::ofstream(path) << "base = \"" << test::smoke_recipe() << "\"\nmetric = \"eval.f1\"\n" << body;
  return path;
}

const Diagnostic* error_about(const SweepLoad& load, const std::string& key) {
  for (const auto& d : load.diags)
    if (d.key_path == key && d.severity == Severity::Error) return &d;
  return nullptr;
}

// The first error of a sweep file whose [asha] table is `asha` (line 4 onwards).
const Diagnostic* refused(SweepLoad& load, const std::string& asha, const std::string& key) {
  load = load_sweep_file(write_sweep("[asha]\n" + asha));
  INFO(asha << "\n" << format_all(load.diags));
  CHECK_FALSE(load.sweep);
  return error_about(load, key);
}

// `runner sweep --dry-run` of a sweep with these [set] lines and this [asha] table.
test::CommandResult dry_run_with(const std::string& set, const std::string& asha) {
  return test::run_command(test::runner_exe() + " sweep --dry-run " + write_sweep("[set]\n" + set + "[asha]\n" + asha));
}

}  // namespace

TEST_CASE("[asha] reads its budgets and eta, eta 3 by default", "[sweep][asha]") {
  SweepLoad load = load_sweep_file(write_sweep("[asha]\nmin_budget = 2\nmax_budget = 18\n"));
  INFO(format_all(load.diags));
  REQUIRE(load.sweep);
  CHECK(load.sweep->asha.enabled);
  CHECK(load.sweep->asha.min_budget == 2);
  CHECK(load.sweep->asha.max_budget == 18);
  CHECK(load.sweep->asha.eta == 3);
  CHECK_FALSE(load.sweep->asha.certain);  // asynchronous promotion by default
  load = load_sweep_file(write_sweep("[asha]\nmin_budget = 2\nmax_budget = 18\npromotion = \"certain\"\n"));
  REQUIRE(load.sweep);
  CHECK(load.sweep->asha.certain);
}

TEST_CASE("[asha] refuses bad numbers and unknown keys on their line", "[sweep][asha]") {
  SweepLoad load;
  const Diagnostic* d = refused(load, "min_budget = 2\nmax_budget = 18\neta = 1\n", "asha.eta");
  REQUIRE(d);
  CHECK(d->where.line == 6);
  CHECK_THAT(d->message, Catch::Contains("eta >= 2"));
  CHECK_THAT(d->hint, Catch::Contains("eta = 3"));

  d = refused(load, "min_budget = 30\nmax_budget = 18\n", "asha.min_budget");
  REQUIRE(d);
  CHECK(d->where.line == 4);
  CHECK_THAT(d->message, Catch::Contains("min_budget <= max_budget, found 30 > 18"));

  d = refused(load, "min_budget = 2.5\nmax_budget = 18\n", "asha.min_budget");
  REQUIRE(d);
  CHECK(d->where.line == 4);
  CHECK_THAT(d->message, Catch::Contains("whole number"));
  d = refused(load, "min_budget = 2\nmax_budget = \"18\"\n", "asha.max_budget");
  REQUIRE(d);
  CHECK(d->where.line == 5);
  CHECK_THAT(d->hint, Catch::Contains("without quotes"));

  d = refused(load, "min_budget = 2\nmax_budget = 18\netaa = 3\n", "asha.etaa");
  REQUIRE(d);
  CHECK(d->where.line == 6);
  CHECK_THAT(d->hint, Catch::Contains("did you mean \"eta\"?"));

  d = refused(load, "min_budget = 2\nmax_budget = 18\npromotion = \"sync\"\n", "asha.promotion");
  REQUIRE(d);
  CHECK(d->where.line == 6);
  CHECK_THAT(d->message, Catch::Contains("expected \"asynchronous\" or \"certain\", found string"));
  CHECK_THAT(d->hint, Catch::Contains("promotion = \"asynchronous\" (the default) or \"certain\""));

  d = refused(load, "min_budget = 2\n", "asha.max_budget");
  REQUIRE(d);
  CHECK_THAT(d->hint, Catch::Contains("max_budget"));

  load = load_sweep_file(write_sweep("asha = 3\n"));
  CHECK_FALSE(load.sweep);
  REQUIRE(error_about(load, "asha"));
  CHECK_THAT(error_about(load, "asha")->hint, Catch::Contains("[asha]"));
}

TEST_CASE("[asha] refuses a sweep that also sets or varies the run's length", "[sweep][asha]") {
  for (const std::string& key : {std::string("train.max_steps"), std::string("train.epochs")}) {
    SweepLoad set = load_sweep_file(write_sweep("[set]\n\"" + key + "\" = 4\n[asha]\nmin_budget = 2\nmax_budget = 18\n"));
    INFO(format_all(set.diags));
    CHECK_FALSE(set.sweep);
    REQUIRE(error_about(set, key));
    CHECK(error_about(set, key)->where.line == 4);
    CHECK_THAT(error_about(set, key)->hint, Catch::Contains("max_budget"));
    SweepLoad grid = load_sweep_file(write_sweep("[grid]\n\"" + key + "\" = [4, 8]\n[asha]\nmin_budget = 2\nmax_budget = 18\n"));
    CHECK_FALSE(grid.sweep);
    CHECK(error_about(grid, key));
  }
  // A --set of the run's length is refused the same way.
  SweepLoad flag = load_sweep_file(write_sweep("[asha]\nmin_budget = 2\nmax_budget = 18\n"), {"train.max_steps=7"});
  CHECK_FALSE(flag.sweep);
  CHECK(error_about(flag, "train.max_steps"));
}

TEST_CASE("sweep --dry-run refuses a recipe whose rungs are not evaluation steps or that evaluates nothing",
          "[sweep][asha]") {
  auto dry_run = [](const std::string& set) { return dry_run_with(set, "min_budget = 6\nmax_budget = 18\n"); };
  // The smoke recipe evaluates per epoch only (eval_every 0).
  auto per_epoch = dry_run("");
  INFO(per_epoch.out);
  CHECK(per_epoch.exit_code == 2);
  CHECK_THAT(per_epoch.out, Catch::Contains("train.eval_every = 0"));
  CHECK_THAT(per_epoch.out, Catch::Contains("s.toml:4"));
  // Run for real, the search is refused before anything is written.
  std::string runs = test::tmp_dir("sweep-asha-refused-runs");
  std::string path = write_sweep("output_dir = \"" + runs + "\"\n[asha]\nmin_budget = 6\nmax_budget = 18\n");
  auto run = test::run_command(test::runner_exe() + " sweep " + path);
  INFO(run.out);
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.out, Catch::Contains("train.eval_every = 0"));
  CHECK_FALSE(std::filesystem::exists(runs + "/s"));
  auto not_multiple = dry_run("\"train.eval_every\" = 4\n");
  INFO(not_multiple.out);
  CHECK(not_multiple.exit_code == 2);
  CHECK_THAT(not_multiple.out, Catch::Contains("min_budget = 6 is not a multiple of train.eval_every = 4"));
  CHECK_THAT(not_multiple.out, Catch::Contains("divisor of min_budget"));
  auto no_eval = dry_run("\"train.eval_every\" = 3\n\"data.eval_split\" = \"\"\n");
  INFO(no_eval.out);
  CHECK(no_eval.exit_code == 2);
  CHECK_THAT(no_eval.out, Catch::Contains("evaluates no split"));
  auto early = dry_run("\"train.eval_every\" = 3\n\"train.early_stopping_patience\" = 2\n");
  INFO(early.out);
  CHECK(early.exit_code == 2);
  CHECK_THAT(early.out, Catch::Contains("early_stopping_patience\" = 0"));
  auto fine = dry_run("\"train.eval_every\" = 3\n");
  INFO(fine.out);
  CHECK(fine.exit_code == 0);
  CHECK_THAT(fine.out, Catch::Contains("Successive halving: rungs at steps 6, 18 (eta 3)"));
}

TEST_CASE("[asha] unit = \"epochs\": rungs in epochs, refused where the runs cannot stop at epoch ends",
          "[sweep][asha]") {
  SweepLoad load = load_sweep_file(write_sweep("[asha]\nmin_budget = 1\nmax_budget = 9\nunit = \"epochs\"\n"));
  INFO(format_all(load.diags));
  REQUIRE(load.sweep);
  CHECK(load.sweep->asha.epochs);
  // Neither length may be set beside it: train.epochs is the search's.
  SweepLoad set = load_sweep_file(
      write_sweep("[set]\n\"train.epochs\" = 4\n[asha]\nmin_budget = 1\nmax_budget = 9\nunit = \"epochs\"\n"));
  REQUIRE(error_about(set, "train.epochs"));
  CHECK_THAT(error_about(set, "train.epochs")->message, Catch::Contains("train.epochs = max_budget"));
  const Diagnostic* d = refused(load, "min_budget = 1\nmax_budget = 9\nunit = \"epoch\"\n", "asha.unit");
  REQUIRE(d);
  CHECK(d->where.line == 6);
  CHECK_THAT(d->message, Catch::Contains("expected \"steps\" or \"epochs\""));

  auto dry_run = [](const std::string& set) {
    return dry_run_with(set, "min_budget = 1\nmax_budget = 9\nunit = \"epochs\"\n");
  };
  // The smoke recipe evaluates at each epoch's end: the rungs are evaluation points.
  auto fine = dry_run("");
  INFO(fine.out);
  CHECK(fine.exit_code == 0);
  CHECK_THAT(fine.out, Catch::Contains("Successive halving: rungs at epochs 1, 3, 9 (eta 3)"));
  auto no_epoch_eval = dry_run("\"train.eval_each_epoch\" = false\n\"train.eval_every\" = 5\n");
  INFO(no_epoch_eval.out);
  CHECK(no_epoch_eval.exit_code == 2);
  CHECK_THAT(no_epoch_eval.out, Catch::Contains("train.eval_each_epoch\" = true"));
  // A base recipe bounded by steps would end the runs before their epochs.
  const std::string base = test::tmp_dir("sweep-asha-by-steps") + "/base.toml";
  std::ofstream(base) << test::read_text(test::smoke_recipe()) << "max_steps = 100\n";
  const std::string path = test::tmp_dir("sweep-asha-by-steps-sweep") + "/s.toml";
  std::ofstream(path) << "base = \"" << base << "\"\nmetric = \"eval.f1\"\n"
                      << "[asha]\nmin_budget = 1\nmax_budget = 9\nunit = \"epochs\"\n";
  auto by_steps = test::run_command(test::runner_exe() + " sweep --dry-run " + path);
  INFO(by_steps.out);
  CHECK(by_steps.exit_code == 2);
  CHECK_THAT(by_steps.out, Catch::Contains("sets train.max_steps = 100"));
  // A run takes one stop: a step or an epoch's end.
  auto both = test::run_command(test::runner_exe() + " run " + test::smoke_recipe() +
                                " --stop-at-step 2 --stop-at-epoch 1");
  INFO(both.out);
  CHECK(both.exit_code == 2);
  CHECK_THAT(both.out, Catch::Contains("--stop-at-step and --stop-at-epoch both"));
}

TEST_CASE("[asha] a fractional eta is a whole number of nothing: no steps in its message", "[sweep][asha]") {
  SweepLoad load;
  const Diagnostic* d = refused(load, "min_budget = 2\nmax_budget = 18\neta = 1.5\n", "asha.eta");
  REQUIRE(d);
  CHECK(d->where.line == 6);
  CHECK_THAT(d->message, Catch::Contains("expected a whole number, found number 1.5"));
  CHECK_THAT(d->message, !Catch::Contains("steps"));
  CHECK_THAT(d->hint, Catch::Contains("eta = 3"));
  d = refused(load, "min_budget = 2.5\nmax_budget = 18\n", "asha.min_budget");
  REQUIRE(d);
  CHECK_THAT(d->message, Catch::Contains("whole number of steps or epochs"));
}
