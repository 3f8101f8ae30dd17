// Settings read from the environment, as a hostile or careless user sets them:
// each out-of-range value is refused by the variable's name with exit 2
// before a run directory exists, instead of a run that never ends or
// rewrites its records without pause.
#include "catch.h"

#include "bounded_run.h"
#include "run_files.h"
#include "shared.h"

#include <filesystem>
#include <string>

namespace fs = std::filesystem;
using namespace runner;

TEST_CASE("RUNNER_HEARTBEAT_SECONDS out of range is refused by name before a run starts", "[cli]") {
  const std::string dir = test::tmp_dir("heartbeat-range");
  // Past an hour (1e10 would overflow the wait's clock, so the run would never exit),
  // under 0.1 s (summary.json rewritten without pause), or not a decimal number.
  for (const char* bad : {"1e10", "1e300", "3601", "1e-9", "0.09", "0", "-5", "nan", "inf", "30s", "0x10"}) {
    INFO(bad);
    auto r = test::run_bounded("env RUNNER_HEARTBEAT_SECONDS=" + std::string(bad) + " " + test::runner_exe() +
                               " run " + test::smoke_recipe() + test::isolated_run_sets(dir));
    INFO(r.out);
    CHECK(r.exit_code == 2);
    CHECK(r.out.find("RUNNER_HEARTBEAT_SECONDS: error: expected a number of seconds in [0.1, 3600], found \"" +
                     std::string(bad) + "\"") != std::string::npos);
    CHECK(r.out.find("hint: unset it") != std::string::npos);
    CHECK_FALSE(fs::exists(dir + "/runs"));
    // Refused after the recipe loads, before LibTorch trains: seconds, not a run's minute.
    CHECK(r.seconds < 30.0);
  }
}
