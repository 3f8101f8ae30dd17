// runner launch's environment for the workers: passive OpenMP waits when the
// workers' threads outnumber the CPUs, and never over the user's own setting;
// each worker on its share of the CPUs; rank 0's standard output alone on the
// launcher's.
#include "parallel/launcher.h"

#include "catch.h"

#include <fmt/format.h>

#include <cstdlib>
#include <sstream>

using namespace runner;

namespace {

// Two workers that print what OMP_WAIT_POLICY they were given.
std::string launch_printing_policy(bool passive) {
  LaunchOptions o;
  o.nproc_per_node = 2;
  o.executable = "/bin/sh";
  o.worker_args = {"-c", "echo policy=${OMP_WAIT_POLICY:-unset} >&2"};
  o.passive_openmp_wait = passive;
  std::ostringstream out;
  REQUIRE(run_launch(o, out, out) == 0);
  return out.str();
}

}  // namespace

TEST_CASE("workers x threads beyond the CPUs means oversubscribed", "[parallel][launch]") {
  CHECK_FALSE(oversubscribed(2, 1, 2));
  CHECK(oversubscribed(2, 2, 2));
  CHECK_FALSE(oversubscribed(2, 0, 2));  // the default splits the CPUs: 1 thread each
  CHECK(oversubscribed(3, 0, 2));        // ... but never fewer than 1
  CHECK_FALSE(oversubscribed(4, 0, 16));
  CHECK(available_cpus() >= 1);
}

TEST_CASE("runner launch sets OMP_WAIT_POLICY=PASSIVE for oversubscribed workers, unless the user "
          "chose a policy", "[parallel][launch]") {
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

namespace {

// Two /bin/sh workers: rank 1 kills itself with SIGKILL until the attempt
// `succeed_at`, and each prints the attempt and the reason it was given.
std::pair<int, std::string> launch_crashing(int max_restarts, int succeed_at) {
  LaunchOptions o;
  o.nproc_per_node = 2;
  o.executable = "/bin/sh";
  o.max_restarts = max_restarts;
  o.worker_args = {"-c", "echo attempt=$RUNNER_RESTART_COUNT of=$RUNNER_MAX_RESTARTS "
                         "reason=\"${RUNNER_RESTART_REASON:-none}\" note=${RUNNER_RUN_DIR_NOTE:+set} >&2; "
                         "if [ $RANK = 1 ] && [ ${RUNNER_RESTART_COUNT:-0} -lt " + std::to_string(succeed_at) +
                         " ]; then kill -9 $$; fi"};
  std::ostringstream out;
  int code = run_launch(o, out, out);
  return {code, out.str()};
}

}  // namespace

TEST_CASE("runner launch --max-restarts starts the whole group again after a crash, up to N times",
          "[parallel][launch]") {
  auto [code, out] = launch_crashing(3, 2);
  INFO(out);
  CHECK(code == 0);
  CHECK_THAT(out, Catch::Contains("[rank 0] attempt=0 of=3 reason=none note=set"));
  CHECK_THAT(out, Catch::Contains("restart 1 of 3 after: rank 1 (pid"));
  CHECK_THAT(out, Catch::Contains("[rank 1] attempt=1 of=3 reason=rank 1 (pid"));
  CHECK_THAT(out, Catch::Contains("[rank 0] attempt=2 of=3"));
  CHECK_THAT(out, !Catch::Contains("attempt=3"));

  auto [given_up, log] = launch_crashing(1, 5);
  INFO(log);
  CHECK(given_up == 128 + 9);
  CHECK_THAT(log, Catch::Contains("[rank 1] attempt=1 of=1"));
  CHECK_THAT(log, Catch::Contains("giving up: the workers failed again after 1 restart(s)") &&
                      Catch::Contains("the last failure: rank 1 (pid"));

  // --max-restarts 0 (the default) is the launcher without restarts: no variables, no retry.
  auto [plain, plain_log] = launch_crashing(0, 5);
  INFO(plain_log);
  CHECK(plain == 128 + 9);
  CHECK_THAT(plain_log, Catch::Contains("[rank 0] attempt= of= reason=none note="));
  CHECK_THAT(plain_log, !Catch::Contains("restart"));
}

TEST_CASE("bad input and interrupts are not restarted", "[parallel][launch]") {
  CHECK(restartable_failure(1));
  CHECK(restartable_failure(128 + 9));
  CHECK_FALSE(restartable_failure(0));
  CHECK_FALSE(restartable_failure(2));    // the same input fails the same way
  CHECK_FALSE(restartable_failure(130));  // the user stopped it
  CHECK_FALSE(restartable_failure(143));
  CHECK_FALSE(restartable_failure(129));  // SIGHUP: a dropped ssh session
  LaunchOptions o;
  o.nproc_per_node = 1;
  o.executable = "/bin/sh";
  o.max_restarts = 3;
  o.worker_args = {"-c", "echo attempt=$RUNNER_RESTART_COUNT >&2; exit 2"};
  std::ostringstream out;
  CHECK(run_launch(o, out, out) == 2);
  CHECK_THAT(out.str(), Catch::Contains("not restarting: exit code 2") && !Catch::Contains("attempt=1"));
}

TEST_CASE("runner launch keeps its standard output for rank 0's, every other line on stderr with its rank",
          "[parallel][launch]") {
  LaunchOptions o;
  o.nproc_per_node = 2;
  o.executable = "/bin/sh";
  o.worker_args = {"-c", "if [ $RANK = 0 ]; then echo /runs/x/dir; fi; echo progress-$RANK >&2; echo out-$RANK"};
  std::ostringstream out, err;
  REQUIRE(run_launch(o, out, err) == 0);
  CHECK(out.str() == "/runs/x/dir\nout-0\n");
  CHECK_THAT(err.str(), Catch::Contains("[rank 0] progress-0\n") && Catch::Contains("[rank 1] progress-1\n") &&
                            Catch::Contains("[rank 1] out-1\n"));
  CHECK_THAT(err.str(), !Catch::Contains("dir"));
}

TEST_CASE("runner launch divides the CPUs between the workers when asked", "[parallel][launch]") {
  const int cpus = available_cpus();
  if (cpus < 2) {
    WARN("one CPU here: nothing to divide");
    return;
  }
  LaunchOptions o;
  o.nproc_per_node = 2;
  o.executable = "/bin/sh";
  o.worker_args = {"-c", "echo cpus-$RANK=$(nproc) >&2"};  // nproc counts the CPUs the process may use
  o.divide_cpus = true;
  std::ostringstream out, err;
  REQUIRE(run_launch(o, out, err) == 0);
  for (int rank : {0, 1}) CHECK_THAT(err.str(), Catch::Contains(fmt::format("cpus-{}={}\n", rank, cpus / 2)));
  o.divide_cpus = false;
  std::ostringstream out2, err2;
  REQUIRE(run_launch(o, out2, err2) == 0);
  CHECK_THAT(err2.str(), Catch::Contains(fmt::format("cpus-1={}\n", cpus)));
}
