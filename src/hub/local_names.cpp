#include "hub/local_names.h"

#include "hub/python_packages.h"
#include "util/paths.h"
#include "util/suggest.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace runner::hub {
namespace fs = std::filesystem;
namespace {

constexpr size_t kTypoEdits = 2;

std::vector<fs::path> subfolders(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec)) out.push_back(it->path());
  return out;
}

bool holds_model_or_tokenizer(const fs::path& folder) {
  std::error_code ec;
  for (const char* file : {"config.json", "vocab.txt", "tokenizer.json", "spm.model"})
    if (fs::is_regular_file(folder / file, ec)) return true;
  return false;
}

// $RUNNER_MODELS/name, and $RUNNER_MODELS/org/name for an org folder.
void add_models_root_names(std::vector<std::string>& out) {
  for (const fs::path& folder : subfolders(model_root())) {
    std::string name = folder.filename().string();
    if (holds_model_or_tokenizer(folder)) {
      out.push_back(name);
      continue;
    }
    for (const fs::path& inner : subfolders(folder))
      if (holds_model_or_tokenizer(inner)) out.push_back(name + "/" + inner.filename().string());
  }
}

// models--org--name -> org/name, as huggingface_hub names its cache folders.
void add_hf_cache_names(const std::string& cache_dir, std::vector<std::string>& out) {
  const std::string prefix = "models--";
  for (const fs::path& folder : subfolders(cache_dir)) {
    std::string name = folder.filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    name = name.substr(prefix.size());
    if (size_t sep = name.find("--"); sep != std::string::npos) name.replace(sep, 2, "/");
    out.push_back(name);
  }
}

// The Hub matches ids without regard to case.
bool same_repo_name(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
           return std::tolower(x) == std::tolower(y);
         });
}

}  // namespace

std::vector<std::string> local_repo_names(const std::string& hf_cache_dir) {
  std::vector<std::string> out;
  add_models_root_names(out);
  add_hf_cache_names(hf_cache_dir, out);
  for (const std::string& repo : installed_packaged_repos(python_package_dirs())) out.push_back(repo);
  return out;
}

std::string closest_local_name(const RepoId& id, const std::string& hf_cache_dir) {
  std::vector<std::string> names = local_repo_names(hf_cache_dir);
  // The name itself is no suggestion (a cache entry without the files asked for).
  names.erase(std::remove_if(names.begin(), names.end(),
                             [&id](const std::string& n) { return same_repo_name(n, id.name); }),
              names.end());
  // A typo is an edit or two; a name further off is more likely another
  // repository (org/tiny-bert beside acme/tiny-bert), which is no typo to point out.
  std::string closest = closest_match(id.name, names);
  return !closest.empty() && edit_distance(id.name, closest) <= kTypoEdits ? closest : "";
}

}  // namespace runner::hub
