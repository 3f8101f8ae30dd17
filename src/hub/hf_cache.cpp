#include "hub/hf_cache.h"

#include "util/diagnostic.h"

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

}  // namespace

std::string HfCache::repo_dir(const RepoId& repo) const {
  return (fs::path(root_) / repo.cache_folder()).string();
}

std::optional<std::string> HfCache::commit_of(const RepoId& repo) const {
  if (is_commit_hash(repo.revision) && fs::is_directory(fs::path(repo_dir(repo)) / "snapshots" / repo.revision))
    return repo.revision;
  std::ifstream in(fs::path(repo_dir(repo)) / "refs" / repo.revision);
  std::string commit;
  if (!in || !std::getline(in, commit) || !is_commit_hash(commit)) return std::nullopt;
  return commit;
}

std::optional<std::string> HfCache::snapshot_file(const RepoId& repo, const std::string& commit,
                                                  const std::string& file) const {
  fs::path p = fs::path(repo_dir(repo)) / "snapshots" / commit / file;
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return std::nullopt;  // follows the symlink
  return p.string();
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
