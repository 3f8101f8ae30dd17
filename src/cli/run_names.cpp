#include "cli/run_names.h"

#include "recipe/recipe.h"
#include "registry/registry.h"
#include "report/run_history.h"
#include "run/run_dir.h"
#include "run/run_search.h"
#include "run/run_options.h"
#include "util/diagnostic.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <ostream>

namespace runner {
namespace fs = std::filesystem;
namespace {

// The newest run directory in a folder of one name's runs (their names start
// with the UTC time, so the last in order is the newest); "" when it holds none.
std::string newest_run_in(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return "";
  std::vector<std::string> dirs = list_run_dirs(folder.parent_path().string(), folder.filename().string());
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it)
    if (looks_like_run_dir(*it)) return *it;
  return "";
}

bool is_recipe_file(const fs::path& file) {
  std::error_code ec;
  std::string ext = file.extension().string();
  return fs::is_regular_file(file, ec) && (ext == ".toml" || ext == ".yaml" || ext == ".yml");
}

// A recipe's [run] (paths unchecked: the data need not be here to find its runs).
std::optional<RunSettings> run_settings_of_recipe(const fs::path& file) {
  if (!is_recipe_file(file)) return std::nullopt;
  RecipeRequest request;
  request.path = file.string();
  request.check_paths = false;
  RecipeLoad load = load_recipe(request, registry());
  if (!load.recipe) return std::nullopt;
  return run_settings_from(load.recipe->section("run"));
}

// The newest run a recipe made: <run.output_dir>/<run.name>/.
std::string newest_run_of_recipe(const fs::path& file) {
  std::optional<RunSettings> run = run_settings_of_recipe(file);
  return run ? newest_run_in(fs::path(run->output_dir) / run->name) : "";
}

// A bare name: a run name (ls's NAME column: the folder of that name's runs)
// or a run folder's own name, anywhere under a search folder, sweeps' runs
// included (<sweep>/<point>/<time>-<id>). The newest wins: run folders start
// with their UTC start time, so the largest folder name is the newest.
std::string newest_run_named(const std::string& name) {
  for (const std::string& root : run_search_folders()) {
    std::string newest;
    for (const std::string& dir : find_run_dirs(root)) {
      fs::path run(dir);
      bool named = run.filename() == name || run.parent_path().filename() == name;
      if (named && (newest.empty() || run.filename().string() > fs::path(newest).filename().string()))
        newest = dir;
    }
    if (!newest.empty()) return newest;
  }
  return "";
}

}  // namespace

namespace {
std::vector<std::string>& flag_folders() {
  static std::vector<std::string> folders;  // one command per process: set once by dispatch
  return folders;
}
}  // namespace

void search_runs_first_in(const std::vector<std::string>& folders) { flag_folders() = folders; }

std::vector<std::string> run_search_folders() {
  std::vector<std::string> out = flag_folders();
  if (const char* env = std::getenv("RUNNER_RUNS"); env && *env) {
    std::string list = env;
    for (size_t start = 0, end; start <= list.size(); start = end + 1) {
      end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      if (end > start) out.push_back(list.substr(start, end - start));
    }
  }
  out.push_back("runs");
  return out;
}

std::string runs_folder_argument(const std::string& arg) {
  if (std::optional<RunSettings> run = run_settings_of_recipe(arg)) return run->output_dir;
  if (!arg.empty()) return arg;
  std::error_code ec;
  for (const std::string& folder : run_search_folders())
    if (fs::is_directory(folder, ec)) return folder;
  return "runs";
}

namespace {

std::string joined_search_folders() {
  std::string out;
  for (const std::string& folder : run_search_folders()) out += (out.empty() ? "" : ", ") + folder;
  return out;
}

InputError no_run_named(const std::string& name) {
  return InputError(make_error(
      SourceLocation{name, 0, 0, {}}, "",
      fmt::format("names no run: no run name or run folder '{}' under {}", terminal_safe(name),
                  terminal_safe(joined_search_folders())),
      "pass a name or a folder as `runner ls` prints them, or a run's path; --runs DIR (or $RUNNER_RUNS) "
      "searches another folder of runs"));
}

}  // namespace

std::string run_dir_argument(const std::string& arg, std::ostream& err, RunArgument kind) {
  // '' would resolve as the current folder, or as the newest run under runs/.
  if (arg.empty())
    throw InputError(make_error(SourceLocation{"''", 0, 0, {}}, "",
                                "expected a run directory or a run name, found an empty argument",
                                "pass a run directory such as runs/NAME/<time>-<id>; `runner ls` lists them"));
  fs::path given = fs::path(arg).lexically_normal();
  if (!given.has_filename()) given = given.parent_path();  // "runs/NAME/"
  std::error_code ec;
  if (looks_like_run_dir(given.string())) return arg;
  std::string newest = is_recipe_file(given) ? newest_run_of_recipe(given) : newest_run_in(given);
  if (newest.empty() && fs::is_regular_file(given, ec)) return arg;  // a baseline file, say
  bool bare_name = newest.empty() && !fs::exists(given, ec) && arg.find('/') == std::string::npos;
  if (bare_name) newest = newest_run_named(arg);
  if (newest.empty() && bare_name && kind == RunArgument::MustBeRun) throw no_run_named(arg);
  if (newest.empty()) return arg;
  err << fmt::format("{}: its newest run, {}\n", arg, newest);
  return newest;
}

}  // namespace runner
