#include "cli/run_names.h"

#include "run/run_dir.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <filesystem>
#include <ostream>

namespace runner {
namespace fs = std::filesystem;
namespace {

bool is_run_dir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "env.json", ec) || fs::is_regular_file(dir / "summary.json", ec);
}

// The newest run directory in a folder of one name's runs (their names start
// with the UTC time, so the last in order is the newest); "" when it holds none.
std::string newest_run_in(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return "";
  std::vector<std::string> dirs = list_run_dirs(folder.parent_path().string(), folder.filename().string());
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it)
    if (is_run_dir(*it)) return *it;
  return "";
}

}  // namespace

std::string run_dir_argument(const std::string& arg, std::ostream& err) {
  // '' would resolve as the current folder, or as the newest run under runs/.
  if (arg.empty())
    throw InputError(make_error(SourceLocation{"''", 0, 0, {}}, "",
                                "expected a run directory or a run name, found an empty argument",
                                "pass a run directory such as runs/NAME/<time>-<id>; `runner ls` lists them"));
  fs::path given = fs::path(arg).lexically_normal();
  if (!given.has_filename()) given = given.parent_path();  // "runs/NAME/"
  std::error_code ec;
  if (is_run_dir(given) || fs::is_regular_file(given, ec)) return arg;
  std::string newest = newest_run_in(given);
  bool bare_name = newest.empty() && !fs::exists(given, ec) && arg.find('/') == std::string::npos;
  if (bare_name) newest = newest_run_in(fs::path("runs") / arg);
  if (newest.empty()) return arg;
  err << fmt::format("{}: its newest run, {}\n", arg, newest);
  return newest;
}

}  // namespace runner
