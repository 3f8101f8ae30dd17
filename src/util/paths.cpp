#include "util/paths.h"

#include "runner_build_config.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

namespace runner {

static std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string source_root() { return RUNNER_SOURCE_ROOT; }

std::string data_root() {
  return env_or("RUNNER_DATA", (std::filesystem::path(source_root()) / ".." / "shared" / "data")
                                   .lexically_normal()
                                   .string());
}

std::string model_root() {
  return env_or("RUNNER_MODELS",
                (std::filesystem::path(source_root()) / ".." / "shared" / "models")
                    .lexically_normal()
                    .string());
}

std::string cache_root() {
  if (const char* v = std::getenv("RUNNER_CACHE"); v && *v) return v;
  if (const char* v = std::getenv("XDG_CACHE_HOME"); v && *v) return std::string(v) + "/runner";
  return env_or("HOME", "/tmp") + "/.cache/runner";
}

std::string python_packages_root() {
  return env_or("RUNNER_PYTHON_PACKAGES", (std::filesystem::path(source_root()) / "build" / "python-packages")
                                              .lexically_normal()
                                              .string());
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
