// Hugging Face Hub repository ids as recipes write them: "bert-base-uncased",
// "google/electra-small-discriminator", "org/name@revision".
#pragma once

#include <optional>
#include <string>

namespace runner::hub {

struct RepoId {
  std::string name;               // "org/name" or "name"
  std::string revision = "main";  // a branch, a tag or a 40-hex commit
  bool revision_given = false;    // written as "name@revision"

  // The cache folder huggingface_hub uses: "models--org--name".
  std::string cache_folder() const;
  std::string str() const;  // "org/name" or "org/name@revision"
};

// The id `text` names, or nullopt when it is a path or not a valid id: ids have one
// or two segments of letters, digits, '-', '_' and '.', no "--" or "..", and
// do not start with '/', '.', or '~'.
std::optional<RepoId> parse_repo_id(const std::string& text);

bool is_commit_hash(const std::string& text);  // 40 lower-case hex digits
bool is_sha256_hex(const std::string& text);   // 64 lower-case hex digits (an LFS etag)

}  // namespace runner::hub
