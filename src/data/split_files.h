// Where a split lives in a dataset of one file per split (csv, conll,
// squad_json ...): the file `files` names for it, else "<split>.<extension>",
// in `dir`.
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace runner {

inline std::string split_file_path(const std::string& dir, const std::map<std::string, std::string>& files,
                                   const std::string& split, const std::string& extension) {
  auto it = files.find(split);
  const std::string name = it != files.end() ? it->second : split + "." + extension;
  return (std::filesystem::path(dir) / name).string();
}

}  // namespace runner
