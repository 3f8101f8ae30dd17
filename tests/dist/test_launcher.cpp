// runner launch's environment for the workers: passive OpenMP waits when the
// workers' threads outnumber the CPUs, and never over the user's own setting.
#include "dist/launcher.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <sstream>

using namespace runner;

namespace {

// Two workers that print what OMP_WAIT_POLICY they were given.
std::string launch_printing_policy(bool passive) {
  LaunchOptions o;
  o.nproc_per_node = 2;
  o.executable = "/bin/sh";
  o.worker_args = {"-c", "echo policy=${OMP_WAIT_POLICY:-unset}"};
  o.passive_openmp_wait = passive;
  std::ostringstream out;
  REQUIRE(run_launch(o, out) == 0);
  return out.str();
}

}  // namespace

TEST_CASE("workers x threads beyond the CPUs means oversubscribed", "[dist][launch]") {
  CHECK_FALSE(oversubscribed(2, 1, 2));
  CHECK(oversubscribed(2, 2, 2));
  CHECK_FALSE(oversubscribed(2, 0, 2));  // the default splits the CPUs: 1 thread each
  CHECK(oversubscribed(3, 0, 2));        // ... but never fewer than 1
  CHECK_FALSE(oversubscribed(4, 0, 16));
  CHECK(available_cpus() >= 1);
}

TEST_CASE("runner launch sets OMP_WAIT_POLICY=PASSIVE for oversubscribed workers, unless the user "
          "chose a policy", "[dist][launch]") {
  const char* before = std::getenv("OMP_WAIT_POLICY");
  std::string saved = before ? before : "";
  unsetenv("OMP_WAIT_POLICY");
  std::string passive = launch_printing_policy(true), untouched = launch_printing_policy(false);
  setenv("OMP_WAIT_POLICY", "ACTIVE", 1);
  std::string users = launch_printing_policy(true);
  if (before) setenv("OMP_WAIT_POLICY", saved.c_str(), 1); else unsetenv("OMP_WAIT_POLICY");
  CHECK_THAT(passive, Catch::Contains("[rank 0] policy=PASSIVE") && Catch::Contains("[rank 1] policy=PASSIVE"));
  CHECK_THAT(untouched, Catch::Contains("[rank 0] policy=unset"));
  CHECK_THAT(users, Catch::Contains("[rank 1] policy=ACTIVE"));
}
