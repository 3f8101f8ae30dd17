#include "hub/repo_id.h"

#include <algorithm>
#include <cctype>

namespace runner::hub {
namespace {

bool is_hex_of_length(const std::string& text, size_t n) {
  return text.size() == n && std::all_of(text.begin(), text.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
         });
}

// The Hub's own rule for a name segment (huggingface_hub validate_repo_id).
bool valid_segment(const std::string& s) {
  if (s.empty() || s.size() > 96) return false;
  if (s.front() == '-' || s.front() == '.' || s.back() == '-' || s.back() == '.') return false;
  if (s.find("--") != std::string::npos || s.find("..") != std::string::npos) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

}  // namespace

bool is_commit_hash(const std::string& text) { return is_hex_of_length(text, 40); }
bool is_sha256_hex(const std::string& text) { return is_hex_of_length(text, 64); }

std::string RepoId::cache_folder() const {
  std::string folder = "models--" + name;
  for (size_t at = folder.find('/'); at != std::string::npos; at = folder.find('/', at))
    folder.replace(at, 1, "--");
  return folder;
}

std::string RepoId::str() const { return revision_given ? name + "@" + revision : name; }

std::optional<RepoId> parse_repo_id(const std::string& text) {
  if (text.empty() || text[0] == '/' || text[0] == '.' || text[0] == '~') return std::nullopt;
  RepoId id;
  std::string name = text;
  if (size_t at = text.find('@'); at != std::string::npos) {
    name = text.substr(0, at);
    id.revision = text.substr(at + 1);
    id.revision_given = true;
    if (id.revision.empty() || id.revision.find_first_of(" \t\n") != std::string::npos)
      return std::nullopt;
  }
  size_t slash = name.find('/');
  if (slash != std::string::npos && name.find('/', slash + 1) != std::string::npos) return std::nullopt;
  if (!valid_segment(name.substr(0, slash))) return std::nullopt;
  if (slash != std::string::npos && !valid_segment(name.substr(slash + 1))) return std::nullopt;
  id.name = name;
  return id;
}

}  // namespace runner::hub
