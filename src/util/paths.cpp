#include "util/paths.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

namespace runner {
namespace fs = std::filesystem;

static std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string executable_path() {
  std::error_code ec;
  std::string path = fs::read_symlink("/proc/self/exe", ec).string();
  if (ec) return "";
  const std::string deleted = " (deleted)";
  if (path.size() > deleted.size() && path.compare(path.size() - deleted.size(), deleted.size(), deleted) == 0) {
    std::string now = path.substr(0, path.size() - deleted.size());
    if (fs::exists(now, ec)) return now;
  }
  return path;
}

std::string executable_dir() {
  const std::string exe = executable_path();
  return exe.empty() ? std::string() : fs::path(exe).parent_path().string();
}

std::string installed_share_dir() {
  const std::string own = executable_dir();
  return own.empty() ? std::string() : (fs::path(own).parent_path() / "share" / "runner").string();
}

// The first `<ancestor>/shared/<kind>` folder up from `start` ("" when none).
static std::string shared_folder_above(const fs::path& start, const std::string& kind) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec).lexically_normal();
  if (ec) return "";
  for (; !dir.empty(); dir = dir.parent_path()) {
    std::error_code missing;  // set for each folder that has no shared/<kind>
    fs::path candidate = dir / "shared" / kind;
    if (fs::is_directory(candidate, missing)) return candidate.string();
    if (dir == dir.root_path()) break;
  }
  return "";
}

static std::string root_of(const char* env, const std::string& kind, const std::string& recipe_dir) {
  if (const char* v = std::getenv(env); v && *v) return v;
  std::error_code ec;
  for (const fs::path& start : {fs::path(recipe_dir), fs::current_path(ec)})
    if (!start.empty())
      if (std::string found = shared_folder_above(start, kind); !found.empty()) return found;
  const std::string share = installed_share_dir();
  return share.empty() ? std::string() : (fs::path(share) / kind).string();
}

std::string data_root(const std::string& recipe_dir) { return root_of("RUNNER_DATA", "data", recipe_dir); }

std::string model_root(const std::string& recipe_dir) { return root_of("RUNNER_MODELS", "models", recipe_dir); }

std::string cache_root() {
  if (const char* v = std::getenv("RUNNER_CACHE"); v && *v) return v;
  if (const char* v = std::getenv("XDG_CACHE_HOME"); v && *v) return std::string(v) + "/runner";
  return env_or("HOME", "/tmp") + "/.cache/runner";
}

std::string python_packages_root() {
  if (const char* v = std::getenv("RUNNER_PYTHON_PACKAGES"); v && *v) return v;
  const std::string own = executable_dir();
  if (own.empty()) return "";
  std::error_code ec;
  fs::path beside = fs::path(own) / "python-packages";
  if (fs::is_directory(beside, ec)) return beside.string();
  return (fs::path(installed_share_dir()) / "python-packages").string();
}

std::string recipe_schema_file() {
  std::error_code ec;
  fs::path dir = executable_dir();
  for (int up = 0; up < 3 && !dir.empty(); ++up, dir = dir.parent_path())
    for (const fs::path& file : {dir / "share" / "runner" / "schemas" / "recipe.schema.json",
                                 dir / "schemas" / "recipe.schema.json"})
      if (fs::is_regular_file(file, ec)) return file.string();
  return "";
}

std::string path_length_problem(const std::string& path) {
  if (path.size() > kMaxPathBytes)
    return fmt::format("the path is {} bytes long; this system allows at most {} (PATH_MAX)", path.size(),
                       kMaxPathBytes);
  size_t start = 0;
  while (start < path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (end - start > kMaxNameBytes)
      return fmt::format("the path's part \"{}...\" is {} bytes long; this system allows at most {} per "
                         "folder or file name (NAME_MAX)",
                         path.substr(start, 24), end - start, kMaxNameBytes);
    start = end + 1;
  }
  return "";
}

std::string resolve_against(const std::string& root, const std::string& path) {
  std::filesystem::path p(path);
  if (p.is_absolute()) return p.lexically_normal().string();
  return (std::filesystem::path(root) / p).lexically_normal().string();
}

}  // namespace runner
