// runner fetch: download what recipes or names need ahead of time (a login node
// with a network, compute nodes without), and say where each file is.
#include "cli/commands.h"

#include "hub/glue_download.h"
#include "hub/glue_tasks.h"
#include "hub/named_datasets.h"
#include "hub/named_sources.h"
#include "hub/repo_files.h"
#include "registry/registry.h"
#include "util/paths.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

namespace runner {
namespace {

bool is_recipe_file(const std::string& arg) {
  auto ext = std::filesystem::path(arg).extension().string();
  return ext == ".toml" || ext == ".yaml" || ext == ".yml";
}

// Everything a recipe names gets located (and downloaded) while the recipe is resolved.
bool fetch_recipe(const std::string& path, const ParsedArgs& args) {
  RecipeRequest request;
  request.path = path;
  request.overrides = args.all("--set");
  request.caps = detect_capabilities();
  RecipeLoad load = load_recipe(request, registry());
  std::cerr << format_all(load.diags);
  if (!load.recipe) std::cerr << fmt::format("{}: not everything it names could be fetched\n", path);
  return load.recipe.has_value();
}

// A Hub id: its model files and its tokenizer files, whichever it has. A kind
// the repository lacks is skipped; any other failure (a cache the run would
// reject offline, the network) fails the fetch, so "exit 0" means the run will find it.
bool fetch_repo(const std::string& id) {
  std::string lacks;
  int fetched = 0;
  for (hub::Fetchable what : {hub::Fetchable::Model, hub::Fetchable::Tokenizer}) {
    try {
      hub::locate({what, id, resolve_against(model_root(), id), "models_root"});
      ++fetched;
    } catch (const hub::RepoLacksFiles& e) {
      lacks += e.diagnostic().format() + "\n";
    } catch (const InputError& e) {
      std::cerr << e.diagnostic().format() << "\n";
      return false;
    }
  }
  if (fetched == 0) std::cerr << lacks;
  return fetched > 0;
}

bool fetch_one(const std::string& arg, const ParsedArgs& args) {
  if (is_recipe_file(arg)) return fetch_recipe(arg, args);
  if (const hub::GlueTaskFiles* task = arg.rfind("glue/", 0) == 0 ? hub::find_glue_task(arg.substr(5)) : nullptr) {
    std::string folder = "glue/" + task->folder;
    hub::locate({hub::Fetchable::DatasetFolder, folder, resolve_against(data_root(), folder), "data_root"});
    return true;
  }
  if (hub::find_named_dataset(arg)) {
    hub::locate({hub::Fetchable::DatasetFolder, arg, resolve_against(data_root(), arg), "data_root"});
    return true;
  }
  if (hub::parse_repo_id(arg)) return fetch_repo(arg);
  throw InputError(make_error(SourceLocation{{}, 0, 0, arg}, "",
                              "expected a recipe (.toml, .yaml), a Hub id (org/name[@revision]), "
                              "a GLUE task (" + hub::glue_task_names() + ") or a dataset (" +
                                  hub::named_dataset_names() + "), found \"" + arg + "\"",
                              "see `runner fetch --help`"));
}

// A local folder (a path, or a name under $RUNNER_MODELS) is used as it is,
// so its files are checked here, as a download's are: every file looked for is
// listed, with its size or as missing, and a missing required one fails the
// fetch. A folder with no file of a kind at all (a tokenizer-only folder has
// no config.json) is skipped for that kind, as a Hub repository lacking it is.
bool check_local_folder(const nlohmann::json& r) {
  const std::string kind = r.value("kind", ""), folder = r.value("folder", "");
  if ((kind != "model" && kind != "tokenizer") || !std::filesystem::is_directory(folder)) return true;
  const hub::FileSet set = kind == "model" ? hub::FileSet::Model : hub::FileSet::Tokenizer;
  std::string listed;
  int present = 0;
  auto seen = [&](const std::string&, const hub::FileProbe& p) {
    present += p.state == hub::FileProbe::Present;
    listed += p.state == hub::FileProbe::Present
                  ? fmt::format("  {}  {} bytes\n", p.path, std::filesystem::file_size(p.path))
                  : fmt::format("  {}  missing\n", p.path);
  };
  try {
    hub::select_folder_files(set, folder, seen);
    std::cout << listed;
    return true;
  } catch (const hub::RepoLacksFiles& e) {
    std::cout << listed;
    if (present == 0) {
      std::cout << fmt::format("  (no {} files here: skipped)\n", kind);
      return true;
    }
    std::cerr << e.diagnostic().format() << "\n";
    return false;
  }
}

bool print_locations(const nlohmann::json& log) {
  bool ok = true;
  for (const auto& r : log) {
    std::string from = r.value("source", "");
    if (r.contains("commit")) from += " " + r["repo"].get<std::string>() + "@" + r["commit"].get<std::string>();
    if (r.contains("package")) from += " " + r["package"].get<std::string>();
    std::cout << fmt::format("{} ({}, {}): {}\n", r["name"].get<std::string>(), r["kind"].get<std::string>(), from,
                             r["folder"].get<std::string>());
    for (const auto& [file, sha] : r["files_sha256"].items())
      std::cout << fmt::format("  {}/{}  sha256 {}\n", r["folder"].get<std::string>(), file, sha.get<std::string>());
    if (r["files_sha256"].empty()) ok = check_local_folder(r) && ok;
  }
  return ok;
}

}  // namespace

int cmd_fetch(const ParsedArgs& args) {
  bool ok = true;
  for (const auto& arg : args.positionals()) ok = fetch_one(arg, args) && ok;
  ok = print_locations(hub::resolution_log()) && ok;
  return ok ? kExitOk : kExitBadInput;
}

}  // namespace runner
