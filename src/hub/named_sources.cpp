#include "hub/named_sources.h"

#include "hub/glue_download.h"
#include "hub/named_datasets.h"
#include "util/diagnostic.h"
#include "util/paths.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

namespace runner::hub {
namespace fs = std::filesystem;
namespace {

struct Log {
  std::mutex mutex;
  std::map<std::string, std::string> folder_of;  // request key -> folder, so a name resolves once
  std::map<std::string, Diagnostic> failure_of;  // ... and fails once
  std::vector<nlohmann::json> entries;
};

Log& log() {
  static Log l;
  return l;
}

const char* kind_name(Fetchable what) {
  switch (what) {
    case Fetchable::Model: return "model";
    case Fetchable::Tokenizer: return "tokenizer";
    default: return "dataset";
  }
}

Resolution resolve_remote(const NameRequest& request, const HubSettings& settings) {
  if (request.what == Fetchable::DatasetFolder) {
    if (auto task = glue_task_of_folder(request.text)) return fetch_glue_task(*task, cache_root() + "/datasets", settings);
    return fetch_named_dataset(*find_named_dataset(request.text), cache_root() + "/datasets", settings);
  }
  FileSet set = request.what == Fetchable::Model ? FileSet::Model : FileSet::Tokenizer;
  Resolution r = resolve_repo(*parse_repo_id(request.text), set, settings);
  r.name = request.text;
  return r;
}

bool names_remote(const NameRequest& request) {
  if (request.what == Fetchable::DatasetFolder)
    return glue_task_of_folder(request.text).has_value() || find_named_dataset(request.text) != nullptr;
  return request.what != Fetchable::None && parse_repo_id(request.text).has_value();
}

}  // namespace

std::string locate(const NameRequest& request) {
  std::error_code ec;
  bool local = fs::exists(request.local, ec);
  if (ec)  // a loop of symbolic links, a folder that cannot be searched
    throw InputError(make_error(SourceLocation{request.local, 0, 0, {}}, "",
                                fmt::format("cannot be looked at: {}", ec.message()),
                                "name the file or folder itself, or mend the link that leads to it"));
  if (request.what == Fetchable::None || (!local && !names_remote(request))) return request.local;
  HubSettings settings = hub_settings_from_env();
  std::string key = std::to_string(int(request.what)) + "|" + request.text + "|" + request.local + "|" +
                    settings.cache_dir + "|" + settings.endpoint + "|" + cache_root();
  Log& l = log();
  std::lock_guard<std::mutex> guard(l.mutex);
  if (auto it = l.folder_of.find(key); it != l.folder_of.end()) return it->second;
  if (auto it = l.failure_of.find(key); it != l.failure_of.end()) throw InputError(it->second);
  Resolution r;
  if (local) {
    r.name = request.text;
    r.kind = kind_name(request.what);
    r.source = request.local_source;
    r.folder = request.local;
  } else {
    try {
      r = resolve_remote(request, settings);
    } catch (const InputError& e) {
      l.failure_of.emplace(key, e.diagnostic());
      throw;
    }
  }
  l.folder_of[key] = r.folder;
  l.entries.push_back(r.to_json());
  return r.folder;
}

nlohmann::json resolution_log() {
  Log& l = log();
  std::lock_guard<std::mutex> guard(l.mutex);
  return nlohmann::json(l.entries);
}

}  // namespace runner::hub
