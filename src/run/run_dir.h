// The run directory runs/<run name>/<UTC time>-<short id>/: the paths of its
// files and its creation. The rest of the run-directory
// model: summary.json read back in run/run_summary.h (written by
// run/summary_writer.h), env.json in run/env_record.h, the search for runs in
// run/run_search.h. Free of LibTorch.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

struct RunPaths {
  std::string dir;  // the run directory itself
  bool created_output_dir = false;  // run.output_dir did not exist before this run made it
  std::string checkpoints() const { return dir + "/checkpoints"; }
  std::string final_model() const { return dir + "/final"; }
  std::string metrics() const { return dir + "/metrics.jsonl"; }
  std::string log() const { return dir + "/train.log"; }
  std::string env() const { return dir + "/env.json"; }
  std::string summary() const { return dir + "/summary.json"; }
  std::string recipe_as_given() const { return dir + "/recipe.given"; }
  std::string recipe_resolved() const { return dir + "/recipe.resolved.json"; }
};

// Creates <output_dir>/<run_name>/<YYYYmmddTHHMMSSZ>-<6 hex>/ with checkpoints/
// in it, after checking that output_dir is writable; throws InputError naming
// the directory and the OS error otherwise. Runs made in one second get
// increasing ids, so folder-name order is the order they were made in.
RunPaths create_run_dir(const std::string& output_dir, const std::string& run_name);

// A record of a run read back (env.json, recipe.resolved.json, state.json):
// throws InputError naming the file and the byte where it breaks.
nlohmann::json read_json_file(const std::string& path);

std::string utc_timestamp();        // 2024-05-01T12:00:00Z

// Writes JSON (or text) to a temporary file, fsyncs it and renames it over `path`.
void write_json_atomic(const std::string& path, const nlohmann::json& j);
void write_text_atomic(const std::string& path, const std::string& text);

// The version LibTorch's headers gave when the build was configured (meson.build),
// so that the front runner, which does not link LibTorch, says it too.
std::string libtorch_version();
// Asked of LibTorch (run/torch_info.cpp).
std::string gpu_model();  // "none" without CUDA

}  // namespace runner
