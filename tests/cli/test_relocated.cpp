// Nothing compiled into the runner points at the folder it
// was built in. A copy laid out as `meson install` lays it out (bin/runner,
// share/runner/...) in a folder outside the checkout reads its data and models
// from the environment, its packages and schema from its own prefix, and never
// names a path of the tree it was built in.
#include "catch.h"

#include "shared.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace runner::test;
namespace fs = std::filesystem;

namespace {

// A prefix outside the checkout (the build folder's test-tmp is inside it).
fs::path fresh_prefix() {
  std::string pattern = (fs::temp_directory_path() / "runner-relocated-XXXXXX").string();
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  return pattern;
}

// bin/runner (the front), bin/runner-torch and share/runner/{schemas,python-packages},
// as `meson install` writes them.
void install_copy(const fs::path& prefix) {
  fs::create_directories(prefix / "bin");
  fs::create_directories(prefix / "share" / "runner" / "schemas");
  fs::copy_file(runner_exe(), prefix / "bin" / "runner");
  fs::copy_file(full_runner_exe(), prefix / "bin" / fs::path(full_runner_exe()).filename());
  fs::copy_file(source_dir() + "/schemas/recipe.schema.json",
                prefix / "share" / "runner" / "schemas" / "recipe.schema.json");
  // The packages are large: a link stands for a copy (the runner does not resolve it).
  fs::create_directory_symlink(build_dir() + "/python-packages", prefix / "share" / "runner" / "python-packages");
}

// The copy run from `dir` with the shared data named by the environment only
// (canonical: the default ../shared is spelt through the checkout's path), and
// its token cache in the prefix (the tests' own is in the build folder).
CommandResult run_copy(const fs::path& prefix, const fs::path& dir, const std::string& args) {
  const std::string shared = fs::canonical(shared_dir()).string();
  return run_command("cd '" + dir.string() + "' && env -u RUNNER_PYTHON_PACKAGES RUNNER_CACHE='" +
                     (prefix / "cache").string() + "' RUNNER_DATA='" + shared +
                     "/data' RUNNER_MODELS='" + shared + "/models' '" + (prefix / "bin" / "runner").string() +
                     "' " + args);
}

void check_no_build_tree_path(const std::string& out) {
  INFO(out);
  std::string source = fs::weakly_canonical(source_dir()).string();
  CHECK(out.find(source) == std::string::npos);
  CHECK(out.find(source_dir()) == std::string::npos);
  CHECK(out.find(build_dir()) == std::string::npos);
}

}  // namespace

TEST_CASE("a runner copied out of its build tree names no path of that tree and trains", "[cli]") {
  fs::path prefix = fresh_prefix();
  install_copy(prefix);
  fs::path work = prefix / "work";
  fs::create_directories(work / "sub");
  fs::copy_file(smoke_recipe(), work / "smoke.toml");

  auto config = run_copy(prefix, work, "print-config smoke.toml");
  REQUIRE(config.exit_code == 0);
  check_no_build_tree_path(config.out);

  auto env = run_copy(prefix, work, "env");
  REQUIRE(env.exit_code == 0);
  check_no_build_tree_path(env.out);
  CHECK(env.out.find((prefix / "share" / "runner" / "python-packages").string()) != std::string::npos);

  // init's schema line resolves from where the recipe is written, to the copy's schema.
  auto init = run_copy(prefix, work, "init --defaults sub/new.toml");
  REQUIRE(init.exit_code == 0);
  std::string first_line;
  std::getline(std::ifstream(work / "sub" / "new.toml"), first_line);
  INFO(first_line);
  REQUIRE(first_line.rfind("#:schema ", 0) == 0);
  fs::path schema = work / "sub" / first_line.substr(9);
  CHECK(fs::equivalent(schema, prefix / "share" / "runner" / "schemas" / "recipe.schema.json"));

  auto run = run_copy(prefix, work, "smoke.toml --set train.epochs=1 --set data.max_train_examples=32");
  INFO(run.out);
  CHECK(run.exit_code == 0);
  CHECK(fs::exists(work / "runs"));
  check_no_build_tree_path(run.out);
  fs::remove_all(prefix);
}

TEST_CASE("a recipe copied out of the clone that cannot find its data names the roots searched", "[cli]") {
  // Offline, so that the name is not fetched: what is left is where it was looked for.
  fs::path dir = fresh_prefix();
  fs::copy_file(source_dir() + "/recipes/smoke/mrpc_smoke.toml", dir / "mrpc_smoke.toml");
  fs::create_directories(dir / "empty-data");
  const std::string validate = "cd '" + dir.string() + "' && env -u RUNNER_DATA -u RUNNER_MODELS HF_HUB_OFFLINE=1 " +
                               runner_exe() + " validate mrpc_smoke.toml";
  auto unset = run_command(validate);
  INFO(unset.out);
  CHECK(unset.exit_code == 2);
  CHECK_THAT(unset.out, Catch::Contains("$RUNNER_DATA is not set and no shared/data folder is above the "
                                        "recipe's folder or the working folder") &&
                            Catch::Contains("set RUNNER_DATA=DIR to the folder that holds glue/MRPC") &&
                            Catch::Contains("set RUNNER_MODELS=DIR to the folder that holds bert-base-uncased"));
  auto set = run_command("cd '" + dir.string() + "' && env -u RUNNER_MODELS RUNNER_DATA='" +
                         (dir / "empty-data").string() + "' HF_HUB_OFFLINE=1 " + runner_exe() +
                         " validate mrpc_smoke.toml");
  INFO(set.out);
  CHECK(set.exit_code == 2);
  CHECK_THAT(set.out, Catch::Contains("it was looked for under " + (dir / "empty-data").string() +
                                      " ($RUNNER_DATA is set)"));
  fs::remove_all(dir);
}
