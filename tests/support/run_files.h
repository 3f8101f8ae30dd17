// What end-to-end tests read back from a run: the one run directory under a
// test's runs/ folder, and the events of its metrics.jsonl.
#pragma once

#include "run/run_dir.h"
#include "run/run_search.h"
#include "util/sha256.h"

#include "catch.h"
#include "shared.h"
#include <nlohmann/json.hpp>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace runner::test {

// --set flags that keep a test's run inside dir (its runs/ and token cache) on one thread.
inline std::string isolated_run_sets(const std::string& dir) {
  return " --set run.output_dir=" + dir + "/runs --set data.cache_dir=" + dir + "/cache --set run.threads=1";
}

// `ENV runner ARGS`: its exit code, stdout and stderr together.
inline CommandResult runner_cmd(const std::string& env, const std::string& args) {
  return run_command(env + " " + runner_exe() + " " + args);
}

// The single run of `run_name` under dir/runs (a data-parallel run: rank 0 alone made one).
inline std::string only_run_dir(const std::string& dir, const std::string& run_name = "mrpc_smoke") {
  auto dirs = runner::list_run_dirs(dir + "/runs", run_name);
  REQUIRE(dirs.size() == 1);
  return dirs[0];
}

// `runner ARGS` (a run command) killed with SIGKILL at optimizer step `step`
// (RUNNER_TEST_KILL_AT_STEP), its run under dir/runs, then resumed to the
// end: the resumed run's directory.
inline std::string killed_and_resumed(const std::string& args, const std::string& dir, const std::string& run_name,
                                      long long step) {
  auto killed = runner_cmd("RUNNER_TEST_KILL_AT_STEP=" + std::to_string(step), args + isolated_run_sets(dir));
  INFO(killed.out);
  REQUIRE(killed.exit_code == 128 + 9);
  const std::string run = only_run_dir(dir, run_name);
  auto resumed = runner_cmd("", "resume " + run);
  INFO(resumed.out);
  REQUIRE(resumed.exit_code == 0);
  return run;
}

// The run's summary.json.
inline nlohmann::json run_summary(const std::string& run_dir) {
  std::ifstream in(run_dir + "/summary.json");
  return nlohmann::json::parse(in);
}

// A checkpoint's state.json edited as `edit` says, and its manifest rehashed so
// that the checkpoint still verifies: damage its sha256 check cannot see.
inline void edit_checkpoint_state(const std::string& checkpoint, const std::function<void(nlohmann::json&)>& edit) {
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str());
  };
  nlohmann::json state = read(checkpoint + "/state.json");
  edit(state);
  const std::string bytes = state.dump(2);
  std::ofstream(checkpoint + "/state.json", std::ios::trunc) << bytes;
  nlohmann::json manifest = read(checkpoint + "/manifest.json");
  manifest["files"]["state.json"] = {{"sha256", digest::sha256_hex(bytes)}, {"bytes", bytes.size()}};
  std::ofstream(checkpoint + "/manifest.json", std::ios::trunc) << manifest.dump(2);
}

// The run's metrics.jsonl events of one kind ("train", "eval", ...), in order.
inline std::vector<nlohmann::json> events(const std::string& run_dir, const std::string& kind) {
  std::ifstream in(run_dir + "/metrics.jsonl");
  std::vector<nlohmann::json> out;
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    if (j["event"] == kind) out.push_back(j);
  }
  return out;
}

}  // namespace runner::test
