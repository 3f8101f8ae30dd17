// The tokenizer files a saved model folder carries (final/, an export), torch-free.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace runner {

// The tokenizer files copied when present.
const std::vector<std::string>& tokenizer_file_names();

// The folder, or the one file, a resolved [tokenizer] section's path names ("" for none).
std::string tokenizer_source(const nlohmann::json& tokenizer_section);

// The tokenizer files a saved folder carries, as (file, name in the folder):
// those of tokenizer_file_names() in a folder, or one file under the name
// Transformers reads (a .json as tokenizer.json, a .model as spm.model, else
// vocab.txt). Empty `source`: none.
std::vector<std::pair<std::string, std::string>> tokenizer_files(const std::string& source);

// Copies `files` into `dir`, writable by its owner; returns their names there.
std::vector<std::string> copy_tokenizer_files(const std::vector<std::pair<std::string, std::string>>& files,
                                              const std::string& dir);

}  // namespace runner
