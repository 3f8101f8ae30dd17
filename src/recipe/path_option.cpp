#include "recipe/path_option.h"

#include "hub/repo_files.h"
#include "util/input_file.h"
#include "util/paths.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

namespace runner {
namespace fs = std::filesystem;
namespace {

// "./x" and "../x" name a path from the recipe's folder, never a root's entry or a Hub id.
bool relative_to_recipe(const std::string& p) { return p.rfind("./", 0) == 0 || p.rfind("../", 0) == 0; }

// The folder a value's relative paths start from: its recipe's.
fs::path folder_of(const Value& v) {
  fs::path here = fs::path(v.loc.file).parent_path();
  return here.empty() ? fs::current_path() : here;  // from --set, a default, or a file in the cwd
}

// A bare model or tokenizer name that is a folder beside where it was written
// (the recipe's folder; the working folder for --set) is that folder, as
// from_pretrained takes an existing local directory before a Hub id.
bool local_model_folder(const OptionSpec& s, const Value& v) {
  if (s.type != OptionType::ModelPath || v.s.empty() || fs::path(v.s).is_absolute() || relative_to_recipe(v.s))
    return false;
  std::error_code ec;
  return fs::is_directory(fs::absolute(folder_of(v), ec) / v.s, ec);
}

// Where a name (not ./ or ../) of a data or model option is looked for: the
// roots (util/paths.h) as seen from the file that wrote it, or, for a default or
// a --set value, from the recipe given.
std::string root_for(const OptionSpec& s, const Value& v, const std::string& recipe_path) {
  std::error_code ec;  // a default's or a --set value's location names no file
  const bool from_file = fs::is_regular_file(v.loc.file, ec);
  std::string recipe_dir = fs::path(from_file ? v.loc.file : recipe_path).parent_path().string();
  return s.type == OptionType::DataPath ? data_root(recipe_dir) : model_root(recipe_dir);
}

// Which names a path option may fetch (src/hub/named_sources.h): the model
// folder (its files picked as a model's), the tokenizer folder, and [data]'s
// dataset folders known by name (GLUE's tasks, conll2003, squad, squad_v2). The section says which file set a folder needs.
hub::Fetchable fetchable(const OptionSpec& s, const std::string& key_path) {
  std::string section = key_path.substr(0, key_path.find('.'));
  if (s.type == OptionType::ModelPath)
    return section == "tokenizer" ? hub::Fetchable::Tokenizer : hub::Fetchable::Model;
  if (s.type == OptionType::DataPath && section == "data") return hub::Fetchable::DatasetFolder;
  return hub::Fetchable::None;
}

}  // namespace

std::string resolve_path_option(const OptionSpec& s, const Value& v, const std::string& recipe_path) {
  if (s.type == OptionType::FilePath || relative_to_recipe(v.s) || local_model_folder(s, v))
    return resolve_against(fs::absolute(folder_of(v)).string(), v.s);
  return resolve_against(root_for(s, v, recipe_path), v.s);
}

hub::NameRequest path_name_request(const OptionSpec& s, const Value& v, const std::string& key_path,
                                   const std::string& resolved) {
  bool explicit_path = relative_to_recipe(v.s) || fs::path(v.s).is_absolute() || local_model_folder(s, v);
  std::string source = explicit_path || s.type == OptionType::FilePath ? "path"
                       : s.type == OptionType::DataPath               ? "data_root"
                                                                      : "models_root";
  return {fetchable(s, key_path), v.s, resolved, source};
}

namespace {

// The files a model or tokenizer folder is read through (mapped, hashed): a
// pipe or a device among them would block the run after its directory exists.
std::string special_file_in_folder(const std::string& folder) {
  std::vector<std::string> files = {"config.json", "vocab.txt", "tokenizer.json", "tokenizer_config.json"};
  files.insert(files.end(), hub::weight_file_names().begin(), hub::weight_file_names().end());
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return "";
  for (const std::string& name : files) {
    std::string file = (fs::path(folder) / name).string(), kind = special_file_kind(file);
    if (!kind.empty()) return file + " is " + kind;
  }
  return "";
}

// The one rule for relative paths, said as it applies to this value: a path is
// relative to where it was written, its recipe file's folder or, on the command
// line (--set), the working folder.
std::string relative_path_rule(const Value& v) {
  std::error_code ec;
  std::string folder = fs::absolute(folder_of(v), ec).lexically_normal().string();
  if (v.loc.file.empty() || !fs::is_regular_file(v.loc.file, ec))
    return "a relative path given with --set (or in a recipe read from standard input) starts at the "
           "working folder, " + folder;
  return "a relative path in a recipe starts at that recipe's folder, " + folder;
}

// A data or model name looked for under a root (not ./, ../ or absolute).
bool is_root_name(const OptionSpec& s, const Value& v) {
  bool root_type = s.type == OptionType::DataPath || s.type == OptionType::ModelPath;
  return root_type && !relative_to_recipe(v.s) && !fs::path(v.s).is_absolute();
}

// Where a name was looked for and how that root was chosen, with the variable that moves it.
std::string roots_hint(const OptionSpec& s, const Value& v, const std::string& recipe_path) {
  bool data = s.type == OptionType::DataPath;
  const char* variable = data ? "RUNNER_DATA" : "RUNNER_MODELS";
  const char* set = std::getenv(variable);
  std::string root = root_for(s, v, recipe_path), shared = data ? "shared/data" : "shared/models";
  std::error_code ec;
  std::string why = set && *set                ? fmt::format("${} is set", variable)
                    : fs::is_directory(root, ec) ? fmt::format("the first {} above the recipe's folder or the "
                                                              "working folder", shared)
                                                 : fmt::format("${} is not set and no {} folder is above the "
                                                              "recipe's folder or the working folder",
                                                              variable, shared);
  return fmt::format("it was looked for under {} ({}); set {}=DIR to the folder that holds {}", root, why,
                     variable, v.s);
}

std::string fetch_failure(const std::string& name, const std::string& resolved, const Diagnostic& d) {
  return fmt::format("path \"{}\" does not exist (resolved to {}), and fetching it by name failed: {}{}", name,
                     resolved, d.message, d.where.known() ? " [" + d.where.str() + "]" : "");
}

}  // namespace

nlohmann::ordered_json check_path_option(const OptionSpec& s, const Value& v, const std::string& path,
                                         const ResolveOptions& options, Diagnostics& diags) {
  std::string resolved = resolve_path_option(s, v, options.recipe_path);
  // Before anything asks the file system: past the system's limits its own message is raw.
  std::string too_long = path_length_problem(resolved);
  if (!too_long.empty()) {
    diags.push_back(make_error(v.loc, path, too_long, "name a shorter path (a symbolic link to the folder is one way)"));
    return resolved;
  }
  if (!options.check_paths) return resolved;
  try {
    resolved = hub::locate(path_name_request(s, v, path, resolved));
  } catch (const InputError& e) {
    std::string hint = e.diagnostic().hint;
    if (is_root_name(s, v)) hint = roots_hint(s, v, options.recipe_path) + "; or " + hint;
    diags.push_back(make_error(v.loc, path, fetch_failure(v.s, resolved, e.diagnostic()), hint));
    return resolved;
  }
  std::string special = special_file_kind(resolved);
  if (!special.empty())
    diags.push_back(make_error(v.loc, path, fmt::format("expected a file or a folder, found {} ({})", special, resolved),
                               "name a regular file or a folder; reading a pipe or a device would wait forever"));
  if (std::string inside = special_file_in_folder(resolved); !inside.empty() && s.type == OptionType::ModelPath)
    diags.push_back(make_error(v.loc, path, "expected regular files in the folder, but " + inside,
                               "replace it with the file itself; reading a pipe or a device would wait forever"));
  if (s.must_exist && !fs::exists(resolved)) {
    std::string root_hint = is_root_name(s, v) ? roots_hint(s, v, options.recipe_path) : relative_path_rule(v);
    diags.push_back(make_error(v.loc, path,
                               fmt::format("path \"{}\" does not exist (resolved to {})", v.s,
                                           resolved),
                               root_hint));
  }
  return resolved;
}

}  // namespace runner
