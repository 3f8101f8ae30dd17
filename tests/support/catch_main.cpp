// The test executables' main. Catch2 v2 writes it from CATCH_CONFIG_MAIN; v3
// ships one in Catch2Main, but this project links only the library (pkg-config
// `catch2`) so that both versions take the same path: a Session run on argv.
//
// A run with no failure removes the directories its tests made (tmp_dir):
// the suite's runs and checkpoints take gigabytes, and a machine's disk is not
// the suite's to fill. A failing run keeps them all to look at, and so does
// any run with RUNNER_KEEP_TEST_TMP set (the golden scripts that read a
// test's files say so).
#if RUNNER_CATCH2_MAJOR >= 3

#include <catch2/catch_session.hpp>
#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }

using ListenerBase = Catch::EventListenerBase;

#else

#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

using ListenerBase = Catch::TestEventListenerBase;

#endif

#include "shared.h"

#include <cstdlib>

namespace {

class RemoveTmpDirs : public ListenerBase {
 public:
  using ListenerBase::ListenerBase;
  void testRunEnded(const Catch::TestRunStats& stats) override {
    const bool passed = stats.totals.testCases.failed == 0 && stats.totals.assertions.failed == 0;
    if (passed && std::getenv("RUNNER_KEEP_TEST_TMP") == nullptr) runner::test::remove_tmp_dirs();
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(RemoveTmpDirs)
