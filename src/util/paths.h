// Roots that relative paths in recipes resolve against.
#pragma once

#include <string>

namespace runner {

std::string source_root();  // the project checkout this runner was built from
std::string data_root();    // $RUNNER_DATA, else <source root>/../shared/data
std::string model_root();   // $RUNNER_MODELS, else <source root>/../shared/models
std::string cache_root();   // $RUNNER_CACHE, else $XDG_CACHE_HOME/runner, else ~/.cache/runner
// Where scripts/setup.sh pip-installs model packages (pip install --target):
// $RUNNER_PYTHON_PACKAGES, else <source root>/build/python-packages.
std::string python_packages_root();

// The system's limits on a path (PATH_MAX counts the terminating NUL, so a
// path has at most 4095 bytes) and on each of its components (NAME_MAX).
constexpr size_t kMaxPathBytes = 4095;
constexpr size_t kMaxNameBytes = 255;

// Why `path` cannot name a file on this system: "" when it can, else what is
// too long ("is 5000 bytes long; ..."), so the caller can name the path, where
// it came from and the fix. Checked where a user or a record names a path,
// before the path reaches the file system (whose own message is raw).
std::string path_length_problem(const std::string& path);

// `path` made absolute against `root` unless it already is.
std::string resolve_against(const std::string& root, const std::string& path);

}  // namespace runner
