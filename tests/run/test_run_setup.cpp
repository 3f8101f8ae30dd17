// The process settings a session applies before it trains (src/run/run_setup.h).
#include "run/run_setup.h"

#include "catch.h"

#include <ATen/Parallel.h>

using namespace runner;

TEST_CASE("the runner's own loops are split over every intra-op thread", "[run]") {
  // GCC builds compile with OpenMP, which at::parallel_for needs to split work;
  // a clang build (sanitizers, fuzzing) keeps its loops on one thread.
#if defined(__GNUC__) && !defined(__clang__)
  const int want = 2;
#else
  const int want = 1;
#endif
  const int threads = at::get_num_threads();
  at::set_num_threads(2);
  const int used = own_loop_threads();
  at::set_num_threads(1);
  const int alone = own_loop_threads();
  at::set_num_threads(threads);
  CHECK(used == want);
  CHECK(alone == 1);
}
