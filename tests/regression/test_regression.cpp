// The metric regression suite: each recipe in tests/regression/recipes/ is
// trained and checked against its committed baseline with `runner compare`,
// exactly as a user's CI would. How the baselines were made: README.md here.
#include "catch.h"

#include "shared.h"

#include <filesystem>

namespace fs = std::filesystem;
using runner::test::run_command;

namespace {

struct RegressionCase {
  const char* name;    // recipes/<name>.toml and baselines/<name>.json
  const char* checks;  // the `runner compare` tolerance flags
};

// Same seed, same data, same code: on one machine the metrics repeat exactly. The
// tolerances absorb what another CPU's floating-point kernels may change (about
// one example in 128 of accuracy) while a real regression (a broken optimizer
// step, a shuffled label map) moves these metrics by far more.
const RegressionCase kCases[] = {
    {"mrpc_tiny", "--metric eval.accuracy --abs-tol 0.02 --metric eval.f1 --abs-tol 0.03 "
                  "--metric eval.loss --abs-tol 0.02"},
    {"sst2_tiny", "--metric eval.accuracy --abs-tol 0.02 --metric eval.loss --abs-tol 0.02"},
};

}  // namespace

TEST_CASE("regression recipes stay within tolerance of their baselines", "[regression]") {
  std::string root = runner::test::source_dir() + "/tests/regression";
  for (const auto& c : kCases) {
    SECTION(c.name) {
      std::string out = runner::test::tmp_dir(std::string("regression-") + c.name);
      auto run = run_command(runner::test::runner_exe() + " run " + root + "/recipes/" + c.name +
                             ".toml --set run.output_dir=" + out);
      INFO(run.out);
      REQUIRE(run.exit_code == 0);
      std::string run_dir;
      for (const auto& e : fs::recursive_directory_iterator(out))
        if (e.path().filename() == "summary.json") run_dir = e.path().parent_path().string();
      REQUIRE(!run_dir.empty());
      auto cmp = run_command(runner::test::runner_exe() + " compare " + root + "/baselines/" +
                             c.name + ".json " + run_dir + " " + c.checks);
      INFO(cmp.out);
      CHECK(cmp.exit_code == 0);
      CHECK(cmp.out.find("every check within tolerance") != std::string::npos);
    }
  }
}
