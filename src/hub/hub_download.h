// Downloads one file of a Hub repository into the Hugging Face cache, as
// huggingface_hub's hf_hub_download does: a HEAD on the resolve URL gives the
// commit, the etag (for LFS files the sha256 of the bytes) and the size; the
// bytes go to blobs/<etag>.incomplete (resumed with a Range request after a
// dropped connection), are checked, and are renamed into blobs/<etag> under a
// lock; snapshots/<commit>/<file> then links to the blob.
#pragma once

#include "hub/hf_cache.h"
#include "hub/hub_settings.h"
#include "hub/repo_id.h"

#include <optional>
#include <string>

namespace runner::hub {

struct FileMetadata {
  std::string commit;
  std::string etag;        // quotes removed; 64 hex digits for an LFS file
  long long size = -1;
  std::string download_url;  // the redirect target for LFS files, else the resolve URL
};

struct FetchedFile {
  std::string file;    // path inside the repository
  std::string path;    // snapshots/<commit>/<file>
  std::string sha256;  // of the bytes
  bool downloaded = false;
};

class HubDownloader {
 public:
  explicit HubDownloader(HubSettings settings)
      : settings_(std::move(settings)), cache_(settings_.cache_dir) {}

  // `file` at `*commit` (when set) or at the repository's revision, from the cache or
  // the server; `*commit` is set to the commit it came from. nullopt when the
  // repository has no such file (recorded in .no_exist). Errors are InputError.
  std::optional<FetchedFile> fetch(const RepoId& repo, const std::string& file, std::string* commit) const;

  // The HEAD request alone; nullopt when the file does not exist at that revision.
  std::optional<FileMetadata> metadata(const RepoId& repo, const std::string& revision,
                                       const std::string& file) const;

  const HfCache& cache() const { return cache_; }
  const HubSettings& settings() const { return settings_; }

 private:
  std::string resolve_url(const RepoId& repo, const std::string& revision, const std::string& file) const;
  std::string download_blob(const RepoId& repo, const std::string& file, const FileMetadata& meta) const;
  void download_to_incomplete(const RepoId& repo, const std::string& file, const FileMetadata& meta,
                              const std::string& incomplete) const;
  void verify_and_store(const RepoId& repo, const std::string& file, const FileMetadata& meta,
                        const std::string& incomplete, const std::string& blob) const;

  HubSettings settings_;
  HfCache cache_;
};

// The sha256 of a cached snapshot file: the blob's name when it is an LFS etag,
// else a digest of its bytes.
std::string cached_file_sha256(const std::string& snapshot_path);

}  // namespace runner::hub
