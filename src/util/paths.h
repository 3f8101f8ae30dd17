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

// `path` made absolute against `root` unless it already is.
std::string resolve_against(const std::string& root, const std::string& path);

}  // namespace runner
