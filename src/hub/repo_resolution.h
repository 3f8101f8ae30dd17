// A Hub repository id turned into a local snapshot folder holding the files a
// run needs: from the Hugging Face cache when it has them all, else downloaded
// (never when offline).
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
  std::string source;  // "path", "models_root", "data_root", "hf_cache", "download", "dataset_cache"
  std::string folder;  // what the run reads
  std::string repo, revision, commit;                        // Hub sources only
  std::vector<std::pair<std::string, std::string>> files;    // file -> sha256

  nlohmann::json to_json() const;
};

Resolution resolve_repo(const RepoId& id, FileSet set, const HubSettings& settings);

}  // namespace runner::hub
