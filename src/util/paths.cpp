#include "util/paths.h"

#include "runner_build_config.h"

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

std::string resolve_against(const std::string& root, const std::string& path) {
  std::filesystem::path p(path);
  if (p.is_absolute()) return p.lexically_normal().string();
  return (std::filesystem::path(root) / p).lexically_normal().string();
}

}  // namespace runner
