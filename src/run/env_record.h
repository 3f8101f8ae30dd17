// env.json, the record of what ran where: written by a run's first session,
// added to by each resume, and read back for the recipe `runner resume` loads
// again. Free of LibTorch.
#pragma once

#include "run/run_dir.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

// env.json read back, the one place it is parsed. A file that is not valid JSON
// throws InputError naming it and the byte where it breaks; an absent one too
// (a resume needs it), or reads as an empty object where it may be missing
// (reports and sweeps of a run killed before writing it).
nlohmann::json read_env_record(const RunPaths& paths);
nlohmann::json read_env_record_if_present(const RunPaths& paths);

// What `runner resume` needs to load the recipe again, kept in env.json.
struct RecipeOrigin {
  std::string path;                    // absolute
  std::vector<std::string> overrides;  // --set values, in order
};
nlohmann::json origin_json(const RecipeOrigin& origin);
RecipeOrigin origin_from_env(const nlohmann::json& env, const std::string& env_path);

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
