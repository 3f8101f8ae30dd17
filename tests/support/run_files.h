// What end-to-end tests read back from a run: the one run directory under a
// test's runs/ folder, and the events of its metrics.jsonl.
#pragma once

#include "run/run_dir.h"

#include "catch.h"
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

namespace runner::test {

// The single run of `run_name` under dir/runs (a data-parallel run: rank 0 alone made one).
inline std::string only_run_dir(const std::string& dir, const std::string& run_name = "mrpc_smoke") {
  auto dirs = runner::list_run_dirs(dir + "/runs", run_name);
  REQUIRE(dirs.size() == 1);
  return dirs[0];
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
