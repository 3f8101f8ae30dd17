// A program run by run_command starts as a shell would start it, whatever
// the caller's threads block.
#include "util/bounded_command.h"

#include "catch.h"

#include <csignal>

#include <pthread.h>

TEST_CASE("a program run while the caller blocks the stop signals gets them unblocked", "[util]") {
  sigset_t stops, before;
  sigemptyset(&stops);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stops, sig);
  pthread_sigmask(SIG_BLOCK, &stops, &before);
  // SigBlk: the mask of blocked signals, in hex; SIGINT alone would read 2.
  runner::CommandOutput r = runner::run_command({"grep", "^SigBlk:", "/proc/self/status"}, 10);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == "SigBlk:\t0000000000000000\n");
}
