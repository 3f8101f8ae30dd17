// Replays tests/fuzz/<target>/* through the fuzz targets: each file is an input
// that once crashed, hung or leaked there, so each must now be accepted or
// refused the project's way. A new finding goes in with its fix.
#include "catch.h"

#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "shared.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace fs = std::filesystem;
using namespace runner;

namespace {

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Every file under `root`/<target>/, run through its target. Returns how many.
int replay(const fs::path& root) {
  int count = 0;
  if (!fs::is_directory(root)) return 0;
  for (const auto& dir : fs::directory_iterator(root)) {
    if (!dir.is_directory()) continue;
    const fuzz::Target* target = fuzz::find_target(dir.path().filename().string());
    INFO("folder " << dir.path() << " names no fuzz target (fuzz/fuzz_targets.cpp lists them)");
    REQUIRE(target);
    for (const auto& file : fs::directory_iterator(dir.path())) {
      INFO(file.path().string());
      CHECK_NOTHROW(target->run(bytes_of(file.path())));
      ++count;
    }
  }
  return count;
}

}  // namespace

TEST_CASE("fuzz: every saved input is accepted or refused cleanly by its target", "[fuzz]") {
  int count = replay(fs::path(test::source_dir()) / "tests" / "fuzz");
  CHECK(count > 0);
}

TEST_CASE("fuzz: each target takes an empty input and a line of junk", "[fuzz]") {
  for (const auto& t : fuzz::targets()) {
    INFO(t.name);
    CHECK_NOTHROW(t.run(""));
    CHECK_NOTHROW(t.run(std::string("\0\xff{[\n=:", 7)));
  }
}

TEST_CASE("fuzz: InputError is the expected refusal, any other exception is a finding", "[fuzz]") {
  CHECK_NOTHROW(fuzz::refusing_is_fine([] { throw InputError("bad file"); }));
  CHECK_THROWS_AS(fuzz::refusing_is_fine([] { throw std::out_of_range("stoll"); }), std::out_of_range);
}
