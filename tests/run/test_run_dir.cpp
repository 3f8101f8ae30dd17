// The run directory and its records.
#include "run/env_record.h"
#include "run/run_dir.h"
#include "run/run_search.h"
#include "train/checkpoint_io.h"
#include "util/synced_file.h"
#include "util/diagnostic.h"

#include "runner_build_config.h"
#include "util/built_commit.h"
#include "shared.h"

#include "catch.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <csignal>
#include <sys/resource.h>
#include <unistd.h>

using namespace runner;
namespace fs = std::filesystem;

TEST_CASE("run directories are runs/<name>/<UTC time>-<short id>/ with checkpoints/",
          "[run]") {
  std::string out = runner::test::tmp_dir("run_dirs");
  RunPaths a = create_run_dir(out, "mrpc_tiny");
  RunPaths b = create_run_dir(out, "mrpc_tiny");
  CHECK(a.dir != b.dir);
  CHECK(fs::is_directory(a.checkpoints()));
  std::string leaf = fs::path(a.dir).filename().string();
  CHECK(std::regex_match(leaf, std::regex(R"(\d{8}T\d{6}Z-[0-9a-f]{6})")));
  CHECK(fs::path(a.dir).parent_path() == fs::path(out) / "mrpc_tiny");
  CHECK(list_run_dirs(out, "mrpc_tiny").size() == 2);
}

TEST_CASE("run directories made in one second sort in the order they were made", "[run]") {
  std::string out = runner::test::tmp_dir("run_dirs_order");
  std::vector<std::string> made;
  for (int i = 0; i < 40; ++i) made.push_back(create_run_dir(out, "quick").dir);
  // Forty folders take well under a second, so most share their time stamp and
  // only their ids order them.
  CHECK(list_run_dirs(out, "quick") == made);
}

TEST_CASE("an unwritable output directory is refused before training", "[run]") {
  std::string out = runner::test::tmp_dir("run_dirs_ro");
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_exec);
  if (::access(out.c_str(), W_OK) == 0) {
    WARN("running as root: permissions do not restrict writes; checked with a file instead");
    std::ofstream(out + "/file") << "x";
    CHECK_THROWS_WITH(create_run_dir(out + "/file", "x"), Catch::Contains("run.output_dir"));
  } else {
    CHECK_THROWS_WITH(create_run_dir(out, "x"), Catch::Contains("cannot write to"));
  }
  fs::permissions(out, fs::perms::owner_all);
}

TEST_CASE("the recorded commit is the checkout's HEAD at build time, not at configure time", "[run]") {
  // The suite builds before it runs, so HEAD now is HEAD at the build.
  auto head = runner::test::run_command("git -C " + runner::test::source_dir() + " rev-parse --short=12 HEAD");
  if (head.exit_code != 0) {
    WARN("not a git checkout: the commit is recorded as unknown");
    CHECK(std::string(runner::built_commit()) == "unknown");
    return;
  }
  CHECK(std::string(runner::built_commit()) + "\n" == head.out);
}

TEST_CASE("env.json records versions, machine, command line, seeds and content hashes",
          "[run]") {
  std::string data = runner::test::shared_dir() + "/data/glue/MRPC/dev.tsv";
  EnvInputs in;
  in.command_line = {"runner", "run", "recipes/mrpc.toml"};
  in.seeds = {{"run.seed", 42}};
  in.hashed_files = {data};
  in.threads = 2;
  nlohmann::json env = environment_info(in);
  CHECK(env["runner_version"] == RUNNER_VERSION);
  CHECK(env["git_commit"] == runner::built_commit());
  CHECK(env["libtorch_version"] == TORCH_VERSION);  // the headers this test was built with
  CHECK_FALSE(env["cpu_model"].get<std::string>().empty());
  CHECK(env["command_line"][2] == "recipes/mrpc.toml");
  CHECK(env["seeds"]["run.seed"] == 42);
  // shared/data/README.md lists this sha256 for MRPC dev.tsv.
  CHECK(env["content_sha256"][data] ==
        "9e8f284788040f7c9ecde2e1b3c07237c756f926bd9ef8548ef5d34b56f69f17");
}

TEST_CASE("summary.json is replaced atomically", "[run]") {
  std::string dir = runner::test::tmp_dir("summary");
  write_json_atomic(dir + "/summary.json", {{"status", "running"}});
  write_json_atomic(dir + "/summary.json", {{"status", "completed"}});
  CHECK(nlohmann::json::parse(read_file_bytes(dir + "/summary.json"))["status"] == "completed");
  CHECK_FALSE(fs::exists(dir + "/summary.json.tmp"));
}

TEST_CASE("a record that cannot be written whole keeps the one before, leaves no .tmp, and says why",
          "[run]") {
  std::string dir = runner::test::tmp_dir("record_full_disk");
  const std::string path = dir + "/sweep_ledger.json";
  write_text_atomic(path, "before\n");
  // A file size limit of 1 KiB stands in for a full disk (EFBIG, with SIGXFSZ
  // ignored so that the write returns the error); the old limit comes back after.
  struct sigaction ignore {}, old_action {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGXFSZ, &ignore, &old_action);
  rlimit old_limit{};
  ::getrlimit(RLIMIT_FSIZE, &old_limit);
  rlimit small = old_limit;
  small.rlim_cur = 1024;
  ::setrlimit(RLIMIT_FSIZE, &small);
  std::string message;
  try {
    write_text_atomic(path, std::string(4096, 'x'));
  } catch (const runner::InputError& e) {
    message = e.diagnostic().format();
  }
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  ::sigaction(SIGXFSZ, &old_action, nullptr);
  INFO(message);
  CHECK_THAT(message, Catch::Contains(path + ".tmp") && Catch::Contains("the file grew past the largest") &&
                          Catch::Contains("free space on that disk"));
  CHECK(read_file_bytes(path) == "before\n");
  CHECK_FALSE(fs::exists(path + ".tmp"));
}
