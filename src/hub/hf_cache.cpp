#include "hub/hf_cache.h"

#include "util/diagnostic.h"

#include <fmt/format.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace runner::hub {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void cache_error(const fs::path& where, const std::string& what) {
  throw InputError(make_error(SourceLocation{where.string(), 0, 0, {}}, "",
                              "cannot write the Hugging Face cache: " + what,
                              "check that the cache folder is writable, or point HF_HUB_CACHE elsewhere"));
}

void make_dirs(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) cache_error(dir, "the folder could not be created");
}

// Writes `text` beside `path` and renames it over `path`, so readers see all or nothing.
void write_atomically(const fs::path& path, const std::string& text) {
  make_dirs(path.parent_path());
  fs::path tmp = path.string() + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) cache_error(tmp, "short write");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) cache_error(path, "the file could not be renamed into place");
}

// Whether `p`, its links followed, is inside `folder` (also followed): a
// snapshot link that leads out of the cache (to /etc/passwd) is no file of the repo.
bool resolves_inside(const fs::path& p, const std::string& folder) {
  std::error_code ec;
  fs::path real = fs::canonical(p, ec);
  if (ec) return false;
  fs::path root = fs::canonical(folder, ec);
  if (ec) return false;
  fs::path rel = real.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

}  // namespace

std::string HfCache::repo_dir(const RepoId& repo) const {
  return (fs::path(root_) / repo.cache_folder()).string();
}

std::optional<std::string> HfCache::commit_of(const RepoId& repo) const {
  if (is_commit_hash(repo.revision) && fs::is_directory(fs::path(repo_dir(repo)) / "snapshots" / repo.revision))
    return repo.revision;
  fs::path ref = fs::path(repo_dir(repo)) / "refs" / repo.revision;
  std::error_code ec;
  if (!fs::is_regular_file(ref, ec)) return std::nullopt;  // a FIFO would block the read
  std::ifstream in(ref);
  std::string commit;
  if (!in || !std::getline(in, commit) || !is_commit_hash(commit)) return std::nullopt;
  return commit;
}

std::optional<std::string> HfCache::snapshot_file(const RepoId& repo, const std::string& commit,
                                                  const std::string& file) const {
  fs::path p = fs::path(repo_dir(repo)) / "snapshots" / commit / file;
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;  // follows the symlink
  if (!resolves_inside(p, repo_dir(repo))) return std::nullopt;  // a link out of the cache is not the repo's
  return p.string();
}

std::string HfCache::snapshot_problem(const RepoId& repo, const std::string& commit, const std::string& file) const {
  fs::path p = fs::path(repo_dir(repo)) / "snapshots" / commit / file;
  std::error_code ec;
  if (!fs::is_symlink(p, ec) && !fs::exists(p, ec)) return "";
  if (fs::is_symlink(p, ec) && !fs::exists(p, ec)) {
    fs::path target = (p.parent_path() / fs::read_symlink(p, ec)).lexically_normal();
    fs::path partial = target.string() + ".incomplete";
    return fmt::format("{} is a link to {}, which is missing{}", p.string(), target.string(),
                       fs::exists(partial, ec) ? "; " + partial.string() + " is a download that did not finish" : "");
  }
  if (!fs::is_regular_file(p, ec)) return p.string() + " is not a regular file";
  if (!resolves_inside(p, repo_dir(repo)))
    return fmt::format("{} resolves to {}, outside the cache folder {}", p.string(),
                       fs::canonical(p, ec).string(), repo_dir(repo));
  return "";
}

std::string HfCache::ref_problem(const RepoId& repo) const {
  fs::path ref = fs::path(repo_dir(repo)) / "refs" / repo.revision;
  std::error_code ec;
  if (!fs::exists(ref, ec)) return "";
  if (!fs::is_regular_file(ref, ec)) return ref.string() + " is not a file holding a commit (a folder or a pipe)";
  std::ifstream in(ref);
  std::string commit;
  std::getline(in, commit);
  if (commit.empty()) return ref.string() + " is empty";
  if (!is_commit_hash(commit))
    return fmt::format("{} holds \"{}\", not a commit hash", ref.string(), commit.substr(0, 60));
  fs::path snapshot = fs::path(repo_dir(repo)) / "snapshots" / commit;
  if (!fs::is_directory(snapshot, ec))
    return fmt::format("{} names commit {}, but {} is missing", ref.string(), commit, snapshot.string());
  return "";
}

bool HfCache::known_missing(const RepoId& repo, const std::string& commit, const std::string& file) const {
  return fs::exists(fs::path(repo_dir(repo)) / ".no_exist" / commit / file);
}

std::string HfCache::blob_path(const RepoId& repo, const std::string& etag) const {
  return (fs::path(repo_dir(repo)) / "blobs" / etag).string();
}

std::string HfCache::incomplete_path(const RepoId& repo, const std::string& etag) const {
  return blob_path(repo, etag) + ".incomplete";
}

std::string HfCache::lock_path(const RepoId& repo, const std::string& etag) const {
  return (fs::path(root_) / ".locks" / repo.cache_folder() / (etag + ".lock")).string();
}

void HfCache::write_ref(const RepoId& repo, const std::string& commit) const {
  if (repo.revision == commit) return;  // a commit needs no ref
  write_atomically(fs::path(repo_dir(repo)) / "refs" / repo.revision, commit);
}

std::string HfCache::link_snapshot(const RepoId& repo, const std::string& commit, const std::string& file,
                                   const std::string& etag) const {
  fs::path link = fs::path(repo_dir(repo)) / "snapshots" / commit / file;
  make_dirs(link.parent_path());
  // Relative, as huggingface_hub makes them, so the cache can be moved.
  fs::path target = fs::path(blob_path(repo, etag)).lexically_relative(link.parent_path());
  fs::path tmp = link.string() + ".tmp" + std::to_string(getpid());
  fs::remove(tmp);
  if (symlink(target.c_str(), tmp.c_str()) != 0) cache_error(tmp, "the snapshot link could not be created");
  std::error_code ec;
  fs::rename(tmp, link, ec);
  if (ec) cache_error(link, "the snapshot link could not be renamed into place");
  return link.string();
}

void HfCache::mark_missing(const RepoId& repo, const std::string& commit, const std::string& file) const {
  write_atomically(fs::path(repo_dir(repo)) / ".no_exist" / commit / file, "");
}

}  // namespace runner::hub
