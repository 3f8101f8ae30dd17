// Sweep files: schema, grid/zip/points expansion, and point ids that do not
// depend on the axis order, the file format or the machine.
#include "catch.h"

#include "shared.h"
#include "sweep/expand.h"
#include "sweep/sweep_file.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using namespace runner;

namespace {

using runner::test::smoke_recipe;

std::string write_sweep(const std::string& dir, const std::string& name, const std::string& body) {
  std::string path = dir + "/" + name;
  std::ofstream(path) << body;
  return path;
}

std::string header() {
  return "base = \"" + smoke_recipe() + "\"\nmetric = \"eval.f1\"\n";
}

Expansion expand_text(const std::string& body, const std::string& name = "s.toml") {
  std::string path = write_sweep(test::tmp_dir("sweep-expand"), name, body);
  SweepLoad load = load_sweep_file(path);
  INFO(format_all(load.diags));
  REQUIRE(load.sweep);
  return expand_sweep(*load.sweep);
}

Diagnostics load_errors(const std::string& body) {
  std::string path = write_sweep(test::tmp_dir("sweep-bad"), "bad.toml", body);
  SweepLoad load = load_sweep_file(path);
  if (!load.sweep) return load.diags;
  return expand_sweep(*load.sweep).diags;
}

std::string overrides_text(const SweepPoint& p) {
  std::string out;
  for (const auto& s : p.set_args()) out += s + " ";
  return out;
}

}  // namespace

TEST_CASE("a grid expands to its cartesian product, first axis slowest", "[sweep]") {
  Expansion ex = expand_text(header() + "[set]\n\"train.epochs\" = 1\n[grid]\n"
                             "\"data.train_batch_size\" = [8, 16]\n\"optimizer.lr\" = [3e-4, 1e-4, 5e-5]\n");
  REQUIRE(ex.diags.empty());
  REQUIRE(ex.points.size() == 6);
  CHECK(overrides_text(ex.points[0]) == "train.epochs=1 data.train_batch_size=8 optimizer.lr=0.0003 ");
  CHECK(overrides_text(ex.points[1]) == "train.epochs=1 data.train_batch_size=8 optimizer.lr=0.0001 ");
  CHECK(overrides_text(ex.points[5]) == "train.epochs=1 data.train_batch_size=16 optimizer.lr=5e-05 ");
  std::set<std::string> ids;
  for (const auto& p : ex.points) ids.insert(p.id);
  CHECK(ids.size() == 6);
}

TEST_CASE("point ids: a readable slug plus a hash of the sorted overrides", "[sweep]") {
  // The hash is the first 8 hex digits of sha256 over "key=json\n" lines sorted by
  // key; for this point, computed by hand with:
  //   printf 'data.train_batch_size=16\noptimizer.lr=0.0003\n' | sha256sum   -> 8cb049df...
  Expansion a = expand_text(header() + "[grid]\n\"data.train_batch_size\" = [16]\n"
                            "\"optimizer.lr\" = [3e-4]\n");
  REQUIRE(a.points.size() == 1);
  CHECK(a.points[0].id == "train_batch_size-16_lr-0.0003-8cb049df");
  // Written in the other order, as nested tables, or in YAML: the same hash.
  Expansion b = expand_text(header() + "[grid.optimizer]\nlr = [3e-4]\n[grid.data]\n"
                            "train_batch_size = [16]\n");
  CHECK(b.points[0].id.substr(b.points[0].id.size() - 8) == "8cb049df");
  Expansion y = expand_text("base: " + smoke_recipe() + "\nmetric: eval.f1\ngrid:\n"
                            "  data.train_batch_size: [16]\n  optimizer.lr: [0.0003]\n", "s.yaml");
  CHECK(y.points[0].id == a.points[0].id);
}

TEST_CASE("zip advances its lists together; grid x zip; explicit points", "[sweep]") {
  Expansion z = expand_text(header() + "[zip]\n\"optimizer.lr\" = [1e-3, 1e-4]\n"
                            "\"scheduler.warmup_steps\" = [0, 8]\n");
  REQUIRE(z.points.size() == 2);
  CHECK(overrides_text(z.points[1]) == "optimizer.lr=0.0001 scheduler.warmup_steps=8 ");
  Expansion gz = expand_text(header() + "[grid]\n\"run.seed\" = [1, 2, 3]\n[zip]\n"
                             "\"optimizer.lr\" = [1e-3, 1e-4]\n\"scheduler.warmup_steps\" = [0, 8]\n");
  CHECK(gz.points.size() == 6);
  Expansion p = expand_text(header() + "[set]\n\"optimizer.lr\" = 1e-3\n"
                            "[[points]]\n\"optimizer.lr\" = 1e-2\n"
                            "[[points]]\n\"run.seed\" = 3\n");
  REQUIRE(p.points.size() == 2);
  // A point's own value replaces [set]'s for the same key.
  CHECK(overrides_text(p.points[0]) == "optimizer.lr=0.01 ");
  CHECK(overrides_text(p.points[1]) == "optimizer.lr=0.001 run.seed=3 ");
  // No axes at all: the base recipe (with [set]) is the one point.
  Expansion none = expand_text(header());
  REQUIRE(none.points.size() == 1);
  CHECK(none.points[0].id.rfind("base-", 0) == 0);
}

TEST_CASE("empty axes, ragged zips, duplicate points and bad keys are errors with locations",
          "[sweep]") {
  Diagnostics empty = load_errors(header() + "[grid]\n\"optimizer.lr\" = []\n");
  REQUIRE(empty.size() == 1);
  CHECK(empty[0].where.line == 4);
  CHECK(empty[0].key_path == "grid.optimizer.lr");
  CHECK(empty[0].message.find("empty list") != std::string::npos);

  Diagnostics ragged = load_errors(header() + "[zip]\n\"optimizer.lr\" = [1, 2]\n\"run.seed\" = [1]\n");
  REQUIRE(ragged.size() == 1);
  CHECK(ragged[0].where.line == 5);
  CHECK(ragged[0].message.find("expected 2 values") != std::string::npos);

  Diagnostics dup = load_errors(header() + "[[points]]\n\"optimizer.lr\" = 1e-3\n"
                                "[[points]]\n\"run.seed\" = 1\n[[points]]\n\"optimizer.lr\" = 0.001\n");
  REQUIRE(dup.size() == 1);
  CHECK(dup[0].message.find("point 3") != std::string::npos);
  CHECK(dup[0].message.find("duplicates point 1") != std::string::npos);

  Diagnostics twice = load_errors(header() + "[grid]\n\"run.seed\" = [1]\n[zip]\n\"run.seed\" = [2]\n");
  REQUIRE(!twice.empty());
  CHECK(twice[0].message.find("sets run.seed twice") != std::string::npos);

  Diagnostics unknown = load_errors(header() + "metrc = \"x\"\n");
  REQUIRE(!unknown.empty());
  CHECK(unknown[0].where.line == 3);

  Diagnostics scalar = load_errors(header() + "[grid]\n\"optimizer.lr\" = 1e-3\n");
  REQUIRE(scalar.size() == 1);
  CHECK(scalar[0].message.find("expected a list of values") != std::string::npos);

  Diagnostics no_base = load_errors("metric = \"eval.f1\"\nbase = \"missing.toml\"\n");
  REQUIRE(no_base.size() == 1);
  CHECK(no_base[0].key_path == "base");
  CHECK(no_base[0].where.line == 2);
}

TEST_CASE("the committed sweep schema equals `runner sweep --schema`", "[sweep]") {
  auto r = test::run_command(test::runner_exe() + " sweep --schema 2>/dev/null");
  REQUIRE(r.exit_code == 0);
  std::ifstream in(test::source_dir() + "/schemas/sweep.schema.json");
  std::stringstream committed;
  committed << in.rdbuf();
  INFO("regenerate with: ./build/runner sweep --schema > schemas/sweep.schema.json");
  CHECK(r.out == committed.str());
}

TEST_CASE("the shipped Turc et al. sweep expands to 5 x 4 valid points", "[sweep]") {
  std::string sweep = test::source_dir() + "/recipes/sweeps/turc_bert_mini_mrpc.toml";
  auto r = test::run_command(test::runner_exe() + " sweep --dry-run " + sweep);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("20 points") != std::string::npos);
  CHECK(r.out.find("| 1 | train_batch_size-8_lr-0.0003-") != std::string::npos);
  CHECK(r.out.find("| 20 | train_batch_size-128_lr-3e-05-") != std::string::npos);
  CHECK(r.out.find(" NO |") == std::string::npos);
}

TEST_CASE("a dry run validates every point and names the bad one", "[sweep]") {
  std::string dir = test::tmp_dir("sweep-dry-bad");
  std::string path = write_sweep(dir, "bad.toml", header() + "[grid]\n\"optimizer.lr\" = [1e-3, -1.0]\n");
  auto r = test::run_command(test::runner_exe() + " sweep --dry-run " + path);
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("point 2 (lr--1") != std::string::npos);
  CHECK(r.out.find("optimizer.lr") != std::string::npos);
  CHECK(r.out.find("1 of 2 points invalid") != std::string::npos);
}

TEST_CASE("a sweep file's base and output_dir are interpolated like a recipe's paths", "[sweep]") {
  // base = "${VAR}/x.toml" expands $VAR, as a recipe's extends does.
  std::string dir = test::tmp_dir("sweep-interpolate");
  ::setenv("RUNNER_TEST_SWEEP_RECIPES", (test::source_dir() + "/recipes/smoke").c_str(), 1);
  std::string path = write_sweep(dir, "s.toml",
                                 "base = \"${RUNNER_TEST_SWEEP_RECIPES}/mrpc_smoke.toml\"\nmetric = \"eval.f1\"\n"
                                 "output_dir = \"${RUNNER_TEST_SWEEP_UNSET:-" + dir + "/out}\"\n");
  SweepLoad load = load_sweep_file(path);
  INFO(format_all(load.diags));
  REQUIRE(load.sweep);
  CHECK(load.sweep->base == smoke_recipe());
  CHECK(load.sweep->output_dir == dir + "/out");
  ::unsetenv("RUNNER_TEST_SWEEP_RECIPES");
  Diagnostics unset = load_errors("base = \"${RUNNER_TEST_SWEEP_RECIPES}/mrpc_smoke.toml\"\nmetric = \"eval.f1\"\n");
  REQUIRE(!unset.empty());
  CHECK(unset[0].key_path == "base");
  CHECK(unset[0].where.line == 1);
  CHECK_THAT(unset[0].message, Catch::Contains("RUNNER_TEST_SWEEP_RECIPES"));
}

TEST_CASE("a sweep without output_dir goes where its set table or base recipe sends runs", "[sweep]") {
  // The ledger goes where the recipe's run.output_dir sends runs, not always ./runs/<name>.
  std::string dir = test::tmp_dir("sweep-runs-folder");
  std::ofstream(dir + "/base.toml") << "extends = \"" << smoke_recipe() << "\"\n[run]\noutput_dir = \"" << dir
                                    << "/elsewhere\"\n";
  auto output_dir = [&](const std::string& extra) {
    std::string path = write_sweep(dir, "s.toml", "base = \"base.toml\"\nmetric = \"eval.f1\"\n" + extra);
    SweepLoad load = load_sweep_file(path);
    INFO(format_all(load.diags));
    REQUIRE(load.sweep);
    return load.sweep->output_dir;
  };
  CHECK(output_dir("") == dir + "/elsewhere");
  CHECK(output_dir("[set]\n\"run.output_dir\" = \"" + dir + "/set\"\n") == dir + "/set");
  CHECK(output_dir("output_dir = \"" + dir + "/own\"\n") == dir + "/own");
  std::ofstream(dir + "/base.toml", std::ios::trunc) << "extends = \"" << smoke_recipe() << "\"\n";
  CHECK(output_dir("") == "runs");
}
