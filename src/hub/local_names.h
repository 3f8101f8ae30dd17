// The names a model or tokenizer can be found by without the network: folders
// under $RUNNER_MODELS, repositories in the Hugging Face cache and repositories
// that an installed pip package carries. A misspelt Hub id is checked against
// them before the Hub is asked, so that a typo does not become a download.
#pragma once

#include "hub/repo_id.h"

#include <string>
#include <vector>

namespace runner::hub {

// Every local name, in the form a recipe writes it ("bert-base-uncased", "org/name").
std::vector<std::string> local_repo_names(const std::string& hf_cache_dir);

// The local name within two edits of `id` (not `id` itself), or "" when none is.
std::string closest_local_name(const RepoId& id, const std::string& hf_cache_dir);

}  // namespace runner::hub
