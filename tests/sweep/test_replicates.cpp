// Replicates: points that differ only in a replicate key (run.seed) are one
// configuration, reported as mean, sd (n - 1) and n of the sweep metric and
// ranked by the mean; a replicate key the sweep does not vary is refused.
#include "catch.h"

#include "shared.h"

#include "sweep/replicates.h"
#include "sweep/sweep_file.h"

#include <cmath>
#include <fstream>

using namespace runner;

namespace {

PointRow point(const std::string& id, double lr, int seed, std::optional<double> best,
               const std::string& status = "completed") {
  PointRow r;
  r.id = id;
  r.override_texts = {lr == 1e-4 ? "0.0001" : lr == 3e-4 ? "0.0003" : "0.001", std::to_string(seed)};
  r.overrides = {{"optimizer.lr", lr}, {"run.seed", seed}};
  r.status = status;
  r.best = best;
  return r;
}

SweepTable seeds_table() {
  SweepTable t;
  t.sweep_name = "seeds";
  t.metric = "eval.f1";
  t.keys = {"optimizer.lr", "run.seed"};
  t.rows = {point("a1", 1e-4, 1, 0.80), point("a2", 1e-4, 2, 0.82), point("a3", 1e-4, 3, 0.84),
            point("b1", 3e-4, 1, 0.85), point("b2", 3e-4, 2, 0.75),
            point("c1", 1e-3, 1, std::nullopt, "failed")};
  return t;
}

}  // namespace

TEST_CASE("replicates aggregate to mean, sd with n - 1 and n, ranked by the mean", "[sweep]") {
  SweepTable t = seeds_table();
  std::vector<ConfigurationRow> configs = aggregate_replicates(t, {"run.seed"});
  REQUIRE(configs.size() == 3);
  // By hand: lr 1e-4 has 0.80, 0.82, 0.84: mean 0.82, sd sqrt((0.02^2 + 0 + 0.02^2) / 2) = 0.02.
  // lr 3e-4 has 0.85, 0.75: mean 0.80, sd sqrt((0.05^2 + 0.05^2) / 1) = 0.0707107. It holds the
  // best single point (0.85) and still ranks second: configurations go by their mean.
  // 1e-12: a handful of double roundings of values near 1.
  CHECK(configs[0].label == "optimizer.lr=0.0001");
  CHECK(configs[0].n == 3);
  CHECK(*configs[0].mean == Approx(0.82).margin(1e-12));
  CHECK(*configs[0].sd == Approx(0.02).margin(1e-12));
  CHECK(configs[0].points == std::vector<std::string>{"a1", "a2", "a3"});
  CHECK(configs[1].label == "optimizer.lr=0.0003");
  CHECK(configs[1].n == 2);
  CHECK(*configs[1].mean == Approx(0.80).margin(1e-12));
  CHECK(*configs[1].sd == Approx(std::sqrt(0.005)).margin(1e-12));
  // A configuration whose only point failed has no mean and comes last.
  CHECK(configs[2].label == "optimizer.lr=0.001");
  CHECK(configs[2].n == 0);
  CHECK_FALSE(configs[2].mean);
  CHECK_FALSE(configs[2].sd);

  // Lower is better: the order turns around.
  t.higher_is_better = false;
  std::vector<ConfigurationRow> lower = aggregate_replicates(t, {"run.seed"});
  CHECK(lower[0].label == "optimizer.lr=0.0003");
  // One replicate has a mean and no sd.
  MeanSd one = mean_and_sd({0.5});
  CHECK(*one.mean == 0.5);
  CHECK_FALSE(one.sd);
}

TEST_CASE("the sweep summary and its JSON give the configurations over the replicates", "[sweep]") {
  SweepTable t = seeds_table();
  t.replicates = {"run.seed"};
  t.configurations = aggregate_replicates(t, t.replicates);
  std::string md = render_markdown(t);
  INFO(md);
  CHECK_THAT(md, Catch::Contains("Configurations over replicates of run.seed"));
  CHECK_THAT(md, Catch::Contains("| 1 | optimizer.lr=0.0001 | 0.8200 \u00b1 0.0200 | 3 | a1 a2 a3 |"));
  CHECK_THAT(md, Catch::Contains("| 2 | optimizer.lr=0.0003 | 0.8000 \u00b1 0.0707 | 2 | b1 b2 |"));
  nlohmann::json j = render_json(t);
  CHECK(j["replicates"] == nlohmann::json::array({"run.seed"}));
  CHECK(j["configurations"][0]["n"] == 3);
  CHECK(j["configurations"][2]["mean"].is_null());
}

TEST_CASE("a replicate key the sweep does not vary is refused with the fix", "[sweep]") {
  std::string path = test::tmp_dir("sweep-replicates") + "/s.toml";
  std::ofstream(path) << "base = \"" << test::smoke_recipe() << "\"\nmetric = \"eval.f1\"\n"
                      << "replicates = \"run.seed\"\n[grid]\n\"optimizer.lr\" = [1e-4, 3e-4]\n";
  SweepLoad bad = load_sweep_file(path);
  INFO(format_all(bad.diags));
  CHECK_FALSE(bad.sweep);
  CHECK_THAT(format_all(bad.diags), Catch::Contains("\"run.seed\" is not swept") &&
                                        Catch::Contains("add \"run.seed\" = [1, 2, 3] under [grid]"));
  std::ofstream(path) << "base = \"" << test::smoke_recipe() << "\"\nmetric = \"eval.f1\"\n"
                      << "replicates = \"run.seed\"\n[grid]\n\"optimizer.lr\" = [1e-4, 3e-4]\n"
                      << "\"run.seed\" = [1, 2]\n";
  SweepLoad good = load_sweep_file(path);
  INFO(format_all(good.diags));
  REQUIRE(good.sweep);
  CHECK(good.sweep->replicates == std::vector<std::string>{"run.seed"});
}

TEST_CASE("points that differ only in a replicate key share a configuration index", "[sweep]") {
  std::string path = test::tmp_dir("sweep-configurations") + "/s.toml";
  std::ofstream(path) << "base = \"" << test::smoke_recipe() << "\"\nmetric = \"eval.f1\"\n"
                      << "replicates = \"run.seed\"\n[grid]\n\"optimizer.lr\" = [1e-4, 3e-4]\n"
                      << "\"run.seed\" = [1, 2, 3]\n\"optimizer.weight_decay\" = [0.0, 0.1]\n";
  SweepLoad load = load_sweep_file(path);
  INFO(format_all(load.diags));
  REQUIRE(load.sweep);
  Expansion ex = expand_sweep(*load.sweep);
  REQUIRE(ex.points.size() == 12);
  // The grid runs its axes in key order (lr slowest, then weight decay, then
  // seed), so each configuration's three seeds lie side by side; the four
  // configurations are (lr, weight decay), numbered as first met.
  const std::vector<int> by_point = configuration_indices(ex.points, load.sweep->replicates);
  CHECK(by_point == std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3});
  for (size_t i : {0, 3, 6, 9}) {  // the first seed of each configuration
    INFO(ex.points[i].id);
    CHECK(ex.points[i].set_args().back() == "run.seed=1");
  }
  // Without replicates each point stands alone.
  CHECK(configuration_indices(ex.points, {}) == std::vector<int>(12, -1));
}

TEST_CASE("replicates that names no key is refused, not taken as no replicates", "[sweep]") {
  std::string path = test::tmp_dir("sweep-replicates-empty") + "/s.toml";
  for (const char* given : {"\"\"", "\" , \""}) {
    std::ofstream(path) << "base = \"" << test::smoke_recipe() << "\"\nmetric = \"eval.f1\"\n"
                        << "replicates = " << given << "\n[grid]\n\"run.seed\" = [1, 2]\n";
    SweepLoad load = load_sweep_file(path);
    INFO(given << "\n" << format_all(load.diags));
    CHECK_FALSE(load.sweep);
    CHECK_THAT(format_all(load.diags), Catch::Contains("s.toml:3:") && Catch::Contains("replicates names no key"));
  }
}
