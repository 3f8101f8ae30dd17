// env.json, the record of what ran where: written by a run's first session,
// added to by each resume, and read back typed by the resume, the report and
// `runner compare`. The one place it is parsed. Free of LibTorch.
#pragma once

#include "run/run_dir.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace runner {

// What `runner resume` needs to load the recipe again, kept in env.json.
struct RecipeOrigin {
  std::string path;                    // absolute
  std::vector<std::string> overrides;  // --set values, in order
};
nlohmann::json origin_json(const RecipeOrigin& origin);
// The origin a resume loads, strictly: a missing path or an override that is
// not a string throws InputError naming env_path.
RecipeOrigin origin_from_env(const nlohmann::json& env, const std::string& env_path);

// env.json read back. A field of another type than the runner writes (a
// hand-edited file) reads as empty, or 0; a file hash as its JSON text, so
// that a resume sees it changed.
struct EnvRecord {
  std::string runner_version, git_commit, compiler, libtorch_version;
  std::string host, cpu_model, gpu_model, device, started_utc;
  int threads = 0;
  RecipeOrigin origin;                                   // path "" when none is recorded
  std::map<std::string, std::string> content_sha256;    // data and tokenizer file -> sha256
  nlohmann::json record = nlohmann::json::object();      // the whole file, for key-by-key diffs
};
EnvRecord env_record_from(const nlohmann::json& record);

// A file that is not valid JSON throws InputError naming it and the byte where
// it breaks; an absent one too (a resume needs it), or reads as an empty record
// where it may be missing (reports and sweeps of a run killed before writing it).
EnvRecord read_env_record(const RunPaths& paths);
EnvRecord read_env_record_if_present(const RunPaths& paths);

// What the first session of a run records of the machine and the build.
struct EnvInputs {
  std::vector<std::string> command_line;
  nlohmann::json seeds = nlohmann::json::object();
  std::vector<std::string> hashed_files;  // data files and tokenizer files
  int threads = 0;
  std::string device = "cpu";
};
// Runner version and commit, compiler, LibTorch version, CPU and GPU model,
// threads, host, command line, seeds and the sha256 of every hashed file.
nlohmann::json environment_info(const EnvInputs& in);

// What env.json records of a session.
struct SessionRecord {
  bool resuming = false;
  RecipeOrigin origin;
  std::vector<std::string> command_line;
  std::vector<std::string> hashed_files;  // data and tokenizer files
  long long seed = 0;
  int threads = 0;
  std::string device;
};
// Writes env.json for a new run, or adds the resume to it.
void record_environment(const RunPaths& paths, const SessionRecord& record);

}  // namespace runner
