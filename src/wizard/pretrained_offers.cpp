#include "wizard/pretrained_offers.h"

#include "hub/hub_settings.h"
#include "hub/local_names.h"
#include "hub/named_sources.h"
#include "hub/python_packages.h"
#include "hub/repo_resolution.h"
#include "model/model_budget.h"
#include "registry/registry.h"
#include "util/diagnostic.h"
#include "util/paths.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace runner {
namespace fs = std::filesystem;
namespace {

bool has_weights(const std::string& folder) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(folder) / "config.json", ec) && !missing_weights(folder);
}

// Where a local name's files are, without the network; "" when nowhere here.
std::string offline_folder(const std::string& name, const hub::HubSettings& offline) {
  std::error_code ec;
  std::string under_root = resolve_against(model_root(), name);
  if (fs::is_directory(under_root, ec)) return under_root;
  std::optional<hub::RepoId> id = hub::parse_repo_id(name);
  if (!id) return "";
  try {
    return hub::resolve_repo(*id, hub::FileSet::Model, offline).folder;
  } catch (const std::exception&) {  // not here with every file: not offered
    return "";
  }
}

std::string where_of(const std::string& name, const std::vector<std::string>& packaged) {
  if (std::find(packaged.begin(), packaged.end(), name) != packaged.end()) return "pip package";
  std::error_code ec;
  return fs::is_directory(resolve_against(model_root(), name), ec) ? model_root() : "Hugging Face cache";
}

}  // namespace

std::vector<PretrainedOffer> installed_pretrained_models() {
  hub::HubSettings offline = hub::hub_settings_from_env();
  offline.offline = true;
  std::vector<std::string> packaged = hub::installed_packaged_repos(hub::python_package_dirs());
  std::vector<std::string> names = packaged;
  for (const std::string& name : hub::local_repo_names(offline.cache_dir))
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  std::vector<PretrainedOffer> out;
  for (const std::string& name : names) {
    std::string folder = offline_folder(name, offline);
    if (!folder.empty() && has_weights(folder)) out.push_back({name, model_type_of(folder), where_of(name, packaged)});
  }
  return out;
}

std::string pretrained_folder(const std::string& name, std::string& problem) {
  std::string folder;
  try {
    folder = hub::locate({hub::Fetchable::Model, name, resolve_against(model_root(), name), "models_root"});
  } catch (const InputError& e) {
    problem = e.diagnostic().message + (e.diagnostic().hint.empty() ? "" : "; " + e.diagnostic().hint);
    return "";
  }
  if (auto no_weights = missing_weights(folder)) {
    problem = no_weights->message + "; " + no_weights->hint;
    return "";
  }
  std::error_code ec;
  if (fs::is_regular_file(fs::path(folder) / "config.json", ec)) return folder;
  problem = "no Hugging Face folder with config.json at " + folder +
            "; download it there first (e.g. `huggingface-cli download " + name + " --local-dir " + folder +
            "`) or pick a preset";
  return "";
}

std::string model_type_of(const std::string& folder) {
  std::ifstream in(fs::path(folder) / "config.json");
  nlohmann::json config = nlohmann::json::parse(in, nullptr, false);
  const nlohmann::json type = config.is_object() ? config.value("model_type", nlohmann::json("bert")) : "bert";
  // The family that reads this model_type, as `runner run` picks it.
  if (type.is_string())
    if (const Component* c = find_model_type(registry(), type.get<std::string>())) return c->spec.name;
  return "bert";  // bert and its relatives (MiniLM's config says "bert")
}

}  // namespace runner
