// Successive halving end to end with the runner executable: a point promoted
// from its rung continues its own run and ends bitwise equal to the point
// trained in one go; the points it outranked stop with valid records that ls,
// report and compare show as stopped by the search; a search killed half-way
// goes on where it was when started again.
#include "catch.h"

#include "shared.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using runner::test::read_text;
using runner::test::run_command;

namespace {

// 64 training pairs in batches of 16: 4 steps an epoch, so max_budget 6 crosses
// an epoch's end after the rung at step 2. Evaluation every 2 steps makes each
// rung an evaluation step of the whole run.
const char* kSettings = "\"data.max_train_examples\" = 64\n\"data.max_eval_examples\" = 64\n"
                        "\"train.eval_every\" = 2\n\"run.loggers\" = [\"jsonl\"]\n";

std::string asha_sweep(const std::string& dir) {
  std::string path = dir + "/sweep.toml";
  std::ofstream(path) << "name = \"asha\"\nbase = \"" << runner::test::smoke_recipe() << "\"\nmetric = \"eval.f1\"\n"
                      << "output_dir = \"" << dir << "/runs\"\n[set]\n" << kSettings
                      << "[grid]\n\"optimizer.lr\" = [1e-3, 3e-4, 1e-4]\n"
                      << "[asha]\nmin_budget = 2\nmax_budget = 6\neta = 3\n";
  return path;
}

std::string only_run_dir(const std::string& point_dir) {
  std::vector<std::string> runs;
  for (const auto& e : fs::directory_iterator(point_dir))
    if (e.is_directory()) runs.push_back(e.path().string());
  REQUIRE(runs.size() == 1);  // a promotion continues the point's one run
  return runs.front();
}

nlohmann::json json_of(const std::string& path) { return nlohmann::json::parse(read_text(path)); }

}  // namespace

TEST_CASE("ASHA: a promoted point ends bitwise equal to its run in one go; the others stop with records",
          "[sweep][asha]") {
  std::string dir = runner::test::tmp_dir("sweep-asha");
  std::string sweep = asha_sweep(dir), sweep_dir = dir + "/runs/asha";
  std::string sweep_cmd = runner::test::runner_exe() + " sweep " + sweep;
  // The hook kills the search once two points have finished their first rung.
  auto killed = run_command("RUNNER_TEST_SWEEP_KILL_AFTER=2 " + sweep_cmd);
  INFO(killed.out);
  REQUIRE(killed.exit_code == 137);
  int stopped_before = 0;
  const nlohmann::json before = json_of(sweep_dir + "/sweep_ledger.json")["points"];
  for (const auto& [id, p] : before.items())
    stopped_before += p["state"] == "stopped_by_search" && p["rung"] == 0 && p["rung_metrics"].size() == 1;
  REQUIRE(stopped_before == 2);

  auto rest = run_command(sweep_cmd);
  INFO(rest.out);
  REQUIRE(rest.exit_code == 0);
  // Three points reached rung 0 (step 2); floor(3 / 3) = 1 went on to step 6.
  std::string promoted, stopped;
  const nlohmann::json after = json_of(sweep_dir + "/sweep_ledger.json")["points"];
  for (const auto& [id, p] : after.items()) {
    if (p["state"] == "completed") promoted = id;
    else if (p["state"] == "stopped_by_search") stopped = id;
    else FAIL("unexpected state " << p.dump());
  }
  REQUIRE(!promoted.empty());
  REQUIRE(!stopped.empty());
  std::string promoted_run = only_run_dir(sweep_dir + "/" + promoted);
  std::string stopped_run = only_run_dir(sweep_dir + "/" + stopped);
  nlohmann::json summary = json_of(promoted_run + "/summary.json");
  CHECK(summary["status"] == "completed");
  CHECK(summary["global_step"] == 6);

  // The same point in one go: the same recipe values, train.max_steps = 6, no stop.
  nlohmann::json resolved = json_of(promoted_run + "/recipe.resolved.json");
  std::string one_go = runner::test::runner_exe() + " run " + runner::test::smoke_recipe() +
                       " --set data.max_train_examples=64 --set data.max_eval_examples=64 --set train.eval_every=2"
                       " --set 'run.loggers=[\"jsonl\"]' --set train.max_steps=6" +
                       " --set optimizer.lr=" + resolved["optimizer"]["lr"].dump() +
                       " --set run.threads=" + resolved["run"]["threads"].dump() + " --set run.output_dir=" + dir +
                       "/one_go --set run.name=one_go";
  auto full = run_command(one_go);
  INFO(full.out);
  REQUIRE(full.exit_code == 0);
  std::string full_run = only_run_dir(dir + "/one_go/one_go");
  // fp32 weights compared as bytes: equal files are equal tensors, bit for bit.
  std::string a = read_text(promoted_run + "/final/model.safetensors");
  std::string b = read_text(full_run + "/final/model.safetensors");
  REQUIRE(!a.empty());
  CHECK(a == b);

  // The stopped point: its summary, its checkpoint and evaluation at the rung.
  nlohmann::json s = json_of(stopped_run + "/summary.json");
  CHECK(s["status"] == "stopped_by_search");
  CHECK(s["global_step"] == 2);
  CHECK(s["stopped_at_step"] == 2);
  CHECK(s["stop_eval"]["step"] == 2);
  CHECK(fs::exists(stopped_run + "/checkpoints/step-00000002"));
  CHECK_FALSE(fs::exists(stopped_run + "/final"));

  auto ls = run_command(runner::test::runner_exe() + " ls " + sweep_dir + "/" + stopped);
  INFO(ls.out);
  CHECK(ls.exit_code == 0);
  CHECK_THAT(ls.out, Catch::Contains("stopped_by_search"));
  auto report = run_command(runner::test::runner_exe() + " report " + stopped_run + " --out " + dir + "/stopped.html");
  INFO(report.out);
  CHECK(report.exit_code == 0);
  CHECK_THAT(read_text(dir + "/stopped.html"), Catch::Contains("stopped_by_search"));
  auto compare = run_command(runner::test::runner_exe() + " compare " + promoted_run + " " + stopped_run);
  INFO(compare.out);
  CHECK(compare.exit_code == 0);
  CHECK_THAT(compare.out, Catch::Contains("status stopped_by_search"));

  // The search's progress: --status and the sweep report.
  auto status = run_command(sweep_cmd + " --status");
  INFO(status.out);
  CHECK_THAT(status.out, Catch::Contains("1 promotions, 2 points stopped by the search; 10 optimizer steps spent"));
  auto sweep_report = run_command(runner::test::runner_exe() + " report " + sweep_dir + " --out " + dir + "/sweep.html");
  INFO(sweep_report.out);
  CHECK(sweep_report.exit_code == 0);
  CHECK_THAT(read_text(dir + "/sweep.html"), Catch::Contains("Successive halving (eta 3)"));
}

TEST_CASE("ASHA in epochs: rungs end at epoch ends and a promoted point equals its run in one go",
          "[sweep][asha]") {
  std::string dir = runner::test::tmp_dir("sweep-asha-epochs");
  std::string path = dir + "/sweep.toml", sweep_dir = dir + "/runs/asha_epochs";
  // 64 pairs in batches of 16: 4 steps an epoch; rungs at epochs 1 and 3 (steps 4 and 12),
  // each an epoch's end, where the smoke recipe evaluates.
  std::ofstream(path) << "name = \"asha_epochs\"\nbase = \"" << runner::test::smoke_recipe()
                      << "\"\nmetric = \"eval.f1\"\noutput_dir = \"" << dir << "/runs\"\n[set]\n"
                      << "\"data.max_train_examples\" = 64\n\"data.max_eval_examples\" = 64\n"
                      << "\"run.loggers\" = [\"jsonl\"]\n[grid]\n\"optimizer.lr\" = [1e-3, 3e-4, 1e-4]\n"
                      << "[asha]\nmin_budget = 1\nmax_budget = 3\neta = 3\nunit = \"epochs\"\n";
  auto search = run_command(runner::test::runner_exe() + " sweep " + path);
  INFO(search.out);
  REQUIRE(search.exit_code == 0);
  CHECK_THAT(search.out, Catch::Contains("[asha] rungs at epochs 1, 3"));
  std::string promoted, stopped;
  const nlohmann::json points = json_of(sweep_dir + "/sweep_ledger.json")["points"];
  for (const auto& [id, p] : points.items()) {
    if (p["state"] == "completed") promoted = id;
    else if (p["state"] == "stopped_by_search") stopped = id;
    CHECK(p["rung_metrics"][0].is_number());  // every point ranked at its first epoch's end
  }
  REQUIRE(!promoted.empty());
  REQUIRE(!stopped.empty());
  nlohmann::json s = json_of(only_run_dir(sweep_dir + "/" + stopped) + "/summary.json");
  CHECK(s["stopped_at_step"] == 4);
  CHECK(s["stop_eval"]["step"] == 4);
  std::string promoted_run = only_run_dir(sweep_dir + "/" + promoted);
  CHECK(json_of(promoted_run + "/summary.json")["global_step"] == 12);

  nlohmann::json resolved = json_of(promoted_run + "/recipe.resolved.json");
  auto full = run_command(runner::test::runner_exe() + " run " + runner::test::smoke_recipe() +
                          " --set data.max_train_examples=64 --set data.max_eval_examples=64"
                          " --set 'run.loggers=[\"jsonl\"]' --set train.epochs=3 --set optimizer.lr=" +
                          resolved["optimizer"]["lr"].dump() + " --set run.threads=" +
                          resolved["run"]["threads"].dump() + " --set run.output_dir=" + dir +
                          "/one_go --set run.name=one_go");
  INFO(full.out);
  REQUIRE(full.exit_code == 0);
  // fp32 weights compared as bytes: equal files are equal tensors, bit for bit.
  std::string a = read_text(promoted_run + "/final/model.safetensors");
  CHECK(!a.empty());
  CHECK(a == read_text(only_run_dir(dir + "/one_go/one_go") + "/final/model.safetensors"));
  // Steps spent: 3 points x 4 to the first rung, 8 more for the promoted one, against 3 x 12.
  auto status = run_command(runner::test::runner_exe() + " sweep " + path + " --status");
  CHECK_THAT(status.out, Catch::Contains("20 optimizer steps spent, 55.6% of the 36"));
  CHECK_THAT(status.out, Catch::Contains("| rung | epoch |"));
}

TEST_CASE("ASHA with promotion = \"certain\": every point reports at rung 0 before the best third go on",
          "[sweep][asha]") {
  std::string dir = runner::test::tmp_dir("sweep-asha-certain");
  std::string path = dir + "/sweep.toml";
  std::ofstream(path) << "name = \"certain\"\nbase = \"" << runner::test::smoke_recipe() << "\"\nmetric = \"eval.f1\"\n"
                      << "output_dir = \"" << dir << "/runs\"\n[set]\n" << kSettings
                      << "[grid]\n\"optimizer.lr\" = [1e-3, 3e-4, 1e-4]\n\"run.seed\" = [1, 2]\n"
                      << "[asha]\nmin_budget = 2\nmax_budget = 6\neta = 3\npromotion = \"certain\"\n";
  std::string sweep_cmd = runner::test::runner_exe() + " sweep " + path;
  auto run = run_command(sweep_cmd + " --jobs 1");
  INFO(run.out);
  REQUIRE(run.exit_code == 0);
  // One job at a time, quota floor(6 / 3) = 2. Asynchronous promotion would send
  // the best of the first three on at once. Here the best goes on only when
  // rank 0 + pending < 2: after the fifth point reported, one still to run.
  const size_t first_promotion = run.out.find("[asha] promoted");
  REQUIRE(first_promotion != std::string::npos);
  int started_before = 0;
  for (size_t at = run.out.find("[asha] started"); at < first_promotion; at = run.out.find("[asha] started", at + 1))
    ++started_before;
  CHECK(started_before == 5);
  // floor(6 / 3) = 2 go on: rung 0's two best by F1, equal F1 by the lower loss.
  struct Rung0 {
    std::string id;
    double f1, loss;
    bool completed;
  };
  std::vector<Rung0> points;
  const nlohmann::json ledger = json_of(dir + "/runs/certain/sweep_ledger.json")["points"];
  for (const auto& [id, p] : ledger.items())
    points.push_back({id, p["rung_metrics"][0].get<double>(), p["rung_losses"][0].get<double>(),
                      p["state"] == "completed"});
  REQUIRE(points.size() == 6);
  std::sort(points.begin(), points.end(), [](const Rung0& a, const Rung0& b) {
    return a.f1 != b.f1 ? a.f1 > b.f1 : a.loss < b.loss;
  });
  for (size_t k = 0; k < points.size(); ++k) {
    INFO(points[k].id << " f1 " << points[k].f1 << " loss " << points[k].loss);
    CHECK(points[k].completed == (k < 2));
  }
  // 6 points x 2 steps, and 2 x 4 more steps for the promoted ones.
  auto status = run_command(sweep_cmd + " --status");
  INFO(status.out);
  CHECK_THAT(status.out, Catch::Contains("Successive halving (eta 3, promotions once certain): 2 promotions, "
                                         "4 points stopped by the search; 20 optimizer steps spent"));
}
