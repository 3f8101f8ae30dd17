// Hostile sweep files: wrong types and empty files
// are reported with the key and a hint, a sweep is counted before it is
// expanded, and the ranking metric must be one the runs produce.
#include "catch.h"

#include "bounded_run.h"
#include "shared.h"
#include "sweep/expand.h"
#include "sweep/sweep_file.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

using namespace runner;
using test::run_bounded;

namespace {

using runner::test::smoke_recipe;

std::string write_sweep(const std::string& name, const std::string& body) {
  std::string path = test::tmp_dir("sweep-bounds-" + name) + "/" + name;
  std::ofstream(path) << body;
  return path;
}

std::string dry_run(const std::string& path, const std::string& flags = "") {
  return test::runner_exe() + " sweep --dry-run " + path + flags;
}

void check_clean_refusal(const test::BoundedResult& r) {
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("json.exception") == std::string::npos);
  CHECK(r.out.find("type_error") == std::string::npos);
  // The hangs were minutes long; 10 s leaves room for a 2-core machine shared by several
  // builds (measured alone, each refusal takes well under a second: see the commit).
  CHECK(r.seconds < 10.0);
  CHECK(r.peak_mib < 1024);
}

// 12 grid keys of 10 values: 10^12 points, as the issue found.
std::string huge_grid(int keys) {
  std::string body = "base = \"" + smoke_recipe() + "\"\nmetric = \"eval.f1\"\n[grid]\n";
  for (int k = 0; k < keys; ++k) body += "\"model.k" + std::to_string(k) + "\" = [0,1,2,3,4,5,6,7,8,9]\n";
  return body;
}

}  // namespace

TEST_CASE("a sweep file with base = 5 names the key, the type and the fix", "[sweep]") {
  std::string path = write_sweep("base5.toml", "base = 5\nmetric = \"eval.f1\"\n");
  auto r = run_bounded(dry_run(path));
  check_clean_refusal(r);
  CHECK_THAT(r.out, Catch::Contains(path + ":1:8: error: base: expected a string") &&
                        Catch::Contains("found integer 5") && Catch::Contains("hint:"));
}

TEST_CASE("an empty sweep file says which keys it needs", "[sweep]") {
  for (const char* name : {"empty.toml", "empty.yaml"}) {
    std::string path = write_sweep(name, "");
    auto r = run_bounded(dry_run(path));
    check_clean_refusal(r);
    CHECK_THAT(r.out, Catch::Contains(path) && Catch::Contains("base") && Catch::Contains("metric") &&
                          Catch::Contains("hint:"));
  }
}

TEST_CASE("wrong types in any sweep key are reported, not thrown", "[sweep]") {
  for (const char* body : {"metric = [1]\n", "direction = 3\n", "[set]\n\"a.b\" = 1\n[grid]\nx = 5\n",
                           "points = [5]\n", "points = 5\n", "grid = 5\n", "zip = \"x\"\n"}) {
    std::string text = std::string("base = \"") + smoke_recipe() + "\"\n" +
                       (std::string(body).rfind("metric", 0) == 0 ? "" : "metric = \"eval.f1\"\n") + body;
    std::string path = write_sweep("types.toml", text);
    auto r = run_bounded(dry_run(path));
    INFO(text);
    check_clean_refusal(r);
    CHECK_THAT(r.out, Catch::Contains(path + ":") && Catch::Contains("hint:"));
  }
}

TEST_CASE("sweep points are counted before they are expanded", "[sweep]") {
  SweepFile s;
  s.grid.push_back({"a", std::vector<Value>(10), {}});
  s.grid.push_back({"b", std::vector<Value>(3), {}});
  CHECK(count_points(s) == 30u);
  s.zip.push_back({"c", std::vector<Value>(4), {}});
  CHECK(count_points(s) == 120u);
  s.points.resize(5);
  CHECK(count_points(s) == 125u);
  SweepFile only_points;
  only_points.points.resize(2);
  CHECK(count_points(only_points) == 2u);
  CHECK(count_points(SweepFile{}) == 1u);  // no axes and no points: the base recipe once
  SweepFile overflow;  // 10^20 > 2^64
  for (int k = 0; k < 20; ++k) overflow.grid.push_back({"k", std::vector<Value>(10), {}});
  CHECK_FALSE(count_points(overflow));
  Expansion ex = expand_sweep(overflow);
  CHECK(ex.points.empty());
  REQUIRE(ex.diags.size() == 1);
  CHECK_THAT(ex.diags[0].message, Catch::Contains("more than 18446744073709551615"));
}

TEST_CASE("a sweep of 10^12 points is refused at once; --max-points raises the limit", "[sweep]") {
  std::string path = write_sweep("huge.toml", huge_grid(12));
  // Before: `sweep --dry-run` expanded for minutes, gigabytes deep.
  auto r = run_bounded(dry_run(path));
  check_clean_refusal(r);
  CHECK_THAT(r.out, Catch::Contains(path + ":4:") &&  // the first grid key
                        Catch::Contains("expected at most 10000 points, found 1000000000000") &&
                        Catch::Contains("12 grid keys of 10 values each") &&
                        Catch::Contains("--max-points"));
  // 3 keys = 1000 points: under the default; with --max-points 999 refused.
  std::string small = write_sweep("small.toml", huge_grid(3));
  auto limited = run_bounded(dry_run(small, " --max-points 999"));
  check_clean_refusal(limited);
  CHECK_THAT(limited.out, Catch::Contains("expected at most 999 points, found 1000"));
  auto flag = run_bounded(dry_run(small, " --max-points 0"));
  check_clean_refusal(flag);
  CHECK_THAT(flag.out, Catch::Contains("--max-points: expected an integer in [1, 10000000], found 0"));
  auto help = test::run_command(test::runner_exe() + " sweep --help");
  CHECK_THAT(help.out, Catch::Contains("--max-points N"));
}

TEST_CASE("a sweep metric the runs do not produce fails the dry run", "[sweep]") {
  std::string path = write_sweep("metric.toml", "base = \"" + smoke_recipe() +
                                                    "\"\nmetric = \"eval.f9\"\n[grid]\n"
                                                    "\"optimizer.lr\" = [1e-3, 1e-4]\n");
  auto r = run_bounded(dry_run(path));
  check_clean_refusal(r);
  // MRPC's runs report the loss, accuracy and F1 (GLUE's metrics for the task).
  CHECK_THAT(r.out, Catch::Contains(path + ":2:") && Catch::Contains("metric") &&
                        Catch::Contains("found \"eval.f9\"") &&
                        Catch::Contains("eval.loss, eval.accuracy, eval.f1") &&
                        Catch::Contains("did you mean \"eval.f1\"?"));
  std::string good = write_sweep("metric-ok.toml", "base = \"" + smoke_recipe() +
                                                       "\"\nmetric = \"accuracy\"\n");
  auto ok = test::run_command(test::runner_exe() + " sweep --dry-run " + good);
  INFO(ok.out);
  CHECK(ok.exit_code == 0);
}

TEST_CASE("a sweep name must be one folder name under output_dir, as run.name must", "[sweep]") {
  const std::string dir = test::tmp_dir("sweep-name");
  // TOML escapes: a NUL and a newline inside the name; 300 bytes is past the 200 a name may have.
  const std::vector<std::pair<std::string, std::string>> names = {
      {"\"../../escape\"", "contains \"/\""},        {"\".\"", "is \".\""},
      {"\"..\"", "is \"..\""},                        {"\"a/b\"", "contains \"/\""},
      {"\"nul\\u0000byte\"", "contains the control character 0x00"}, {"\"new\\nline\"", "contains the control character 0x0a"},
      {"\"" + std::string(300, 'n') + "\"", "is 300 bytes long"}, {"\"lr sweep\"", "contains a space"}};
  for (const auto& [name, problem] : names) {
    const std::string path = dir + "/named.toml";
    std::ofstream(path) << "name = " << name << "\nmetric = \"eval.f1\"\nbase = \"" << smoke_recipe() << "\"\noutput_dir = \"" << dir
                        << "/out/runs\"\n[grid]\n\"optimizer.lr\" = [1e-4]\n";
    INFO(name);
    // Refused before anything is written: a sweep's ledger and points go under output_dir/name.
    for (const std::string& command : {dry_run(path), test::runner_exe() + " sweep " + path}) {
      auto r = run_bounded(command);
      check_clean_refusal(r);
      CHECK(r.out.find("named.toml:1:") != std::string::npos);
      CHECK(r.out.find("name: the sweep name " + problem) != std::string::npos);
      CHECK(r.out.find("it must be one folder name under output_dir") != std::string::npos);
    }
    CHECK_FALSE(std::filesystem::exists(dir + "/out"));
    CHECK_FALSE(std::filesystem::exists(dir + "/escape"));
  }
  const std::string fine = dir + "/fine.toml";
  std::ofstream(fine) << "name = \"lr-sweep.v2\"\nmetric = \"eval.f1\"\nbase = \"" << smoke_recipe() << "\"\n[grid]\n\"optimizer.lr\" = [1e-4]\n";
  auto ok = run_bounded(dry_run(fine));
  INFO(ok.out);
  CHECK(ok.exit_code == 0);
}
