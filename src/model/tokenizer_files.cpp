#include "model/tokenizer_files.h"

#include "util/json_input.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace runner {

const std::vector<std::string>& tokenizer_file_names() {
  static const std::vector<std::string> names = {"vocab.txt", "tokenizer.json",
                                                 "tokenizer_config.json",
                                                 "special_tokens_map.json"};
  return names;
}

std::string tokenizer_source(const nlohmann::json& tokenizer_section) {
  return record_string(tokenizer_section, "path");  // a run record's odd value reads as none
}

std::vector<std::pair<std::string, std::string>> tokenizer_files(const std::string& source) {
  std::vector<std::pair<std::string, std::string>> files;
  if (source.empty()) return files;
  const fs::path path(source);
  if (fs::is_regular_file(path)) {
    const std::string ext = path.extension().string();
    files.emplace_back(source, ext == ".json" ? "tokenizer.json" : ext == ".model" ? "spm.model" : "vocab.txt");
    return files;
  }
  for (const auto& name : tokenizer_file_names())
    if (fs::is_regular_file(path / name)) files.emplace_back((path / name).string(), name);
  return files;
}

std::vector<std::string> copy_tokenizer_files(const std::vector<std::pair<std::string, std::string>>& files,
                                              const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& [from, name] : files) {
    fs::copy_file(from, fs::path(dir) / name, fs::copy_options::overwrite_existing);
    // The copy keeps the source's mode, and model stores are often read-only: the
    // exported folder is the user's to edit (a tokenizer_config.json to adjust).
    fs::permissions(fs::path(dir) / name, fs::perms::owner_write, fs::perm_options::add);
    names.push_back(name);
  }
  return names;
}

}  // namespace runner
