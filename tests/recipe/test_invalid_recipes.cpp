// Every file under tests/recipes/invalid/ is a malformed recipe whose first line says
// what `runner validate` must report:  # expect: KEY [FILE:]LINE SUBSTRING
// KEY is the key path the error names ("-" for none), LINE the line of the
// offending value (in FILE when the error is in another file), SUBSTRING a part
// of the message. The runner must exit 2 and print all three.
#include "catch.h"

#include "shared.h"

#include <filesystem>
#include <fstream>
#include <regex>

namespace fs = std::filesystem;
using runner::test::run_command;

namespace {

struct Expectation {
  std::string key, location, substring;
};

Expectation read_expectation(const fs::path& file) {
  std::ifstream in(file);
  std::string first;
  std::getline(in, first);
  static const std::regex header(R"(# expect: (\S+) (\S+) (.+))");
  std::smatch m;
  REQUIRE(std::regex_match(first, m, header));
  Expectation e{m[1], m[2], m[3]};
  if (e.location.find(':') == std::string::npos)
    e.location = file.filename().string() + ":" + e.location;
  return e;
}

}  // namespace

TEST_CASE("every malformed recipe exits 2 naming the key, the line and the problem", "[recipe]") {
  fs::path dir = fs::path(runner::test::source_dir()) / "tests/recipes/invalid";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 30);
  for (const auto& file : files) {
    Expectation e = read_expectation(file);
    // Run from the recipe's folder so messages name files as the expectation does.
    auto r = run_command("cd " + dir.string() + " && env -u RUNNER_TEST_SURELY_UNSET_VAR " +
                         runner::test::runner_exe() + " validate " + file.filename().string());
    INFO(file.filename().string() << "\n" << r.out);
    CHECK(r.exit_code == 2);
    CHECK(r.out.find(e.location + ":") != std::string::npos);
    if (e.key != "-") CHECK(r.out.find(e.key) != std::string::npos);
    CHECK(r.out.find(e.substring) != std::string::npos);
    CHECK(r.out.find("nothing was run") != std::string::npos);
  }
}

TEST_CASE("all errors of a recipe are reported at once", "[recipe]") {
  std::string dir = runner::test::tmp_dir("many_errors");
  std::ofstream(dir + "/many.toml") << "[optimizer]\nlr = -1.0\nlrr = 2\n\n[train]\nprecision = \"fp8\"\n";
  auto r = run_command(runner::test::runner_exe() + " validate " + dir + "/many.toml");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("many.toml:2:6: error: optimizer.lr") != std::string::npos);
  CHECK(r.out.find("many.toml:3:7: error: optimizer.lrr") != std::string::npos);
  CHECK(r.out.find("many.toml:6:13: error: train.precision") != std::string::npos);
  CHECK(r.out.find("3 errors") != std::string::npos);
}
