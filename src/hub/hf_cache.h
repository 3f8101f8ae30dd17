// The Hugging Face hub cache in huggingface_hub's own layout, so that a folder
// transformers downloaded is used as is and one the runner downloads is found
// by transformers:
//   <root>/models--org--name/refs/<revision>          the commit, no newline
//   <root>/models--org--name/snapshots/<commit>/<file> relative symlink to a blob
//   <root>/models--org--name/blobs/<etag>             the file's bytes
//   <root>/models--org--name/.no_exist/<commit>/<file> empty: the repo has no such file
//   <root>/.locks/models--org--name/<etag>.lock       held while a blob is downloaded
#pragma once

#include "hub/repo_id.h"

#include <optional>
#include <string>

namespace runner::hub {

class HfCache {
 public:
  explicit HfCache(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }

  std::string repo_dir(const RepoId& repo) const;
  // The commit a revision points at: the revision itself when it is a commit
  // with a snapshot folder, else the content of refs/<revision>.
  std::optional<std::string> commit_of(const RepoId& repo) const;
  // snapshots/<commit>/<file> when it is a regular file inside the repository's
  // cache folder (a dangling link, a link out of the cache, or a FIFO do not count).
  std::optional<std::string> snapshot_file(const RepoId& repo, const std::string& commit,
                                           const std::string& file) const;
  // Why snapshots/<commit>/<file> is there but unusable ("points at blobs/x,
  // which is missing; blobs/x.incomplete is a download that did not finish",
  // "resolves to /etc/passwd, outside the cache"), or "" when it is usable or absent.
  std::string snapshot_problem(const RepoId& repo, const std::string& commit, const std::string& file) const;
  // Why refs/<revision> gives no usable commit (a folder, empty, not a commit
  // hash, a commit without a snapshot folder), or "" when it does or is absent.
  std::string ref_problem(const RepoId& repo) const;
  bool known_missing(const RepoId& repo, const std::string& commit, const std::string& file) const;

  std::string blob_path(const RepoId& repo, const std::string& etag) const;
  std::string incomplete_path(const RepoId& repo, const std::string& etag) const;
  std::string lock_path(const RepoId& repo, const std::string& etag) const;

  // Writers; each leaves the cache valid if the process dies halfway.
  void write_ref(const RepoId& repo, const std::string& commit) const;
  std::string link_snapshot(const RepoId& repo, const std::string& commit, const std::string& file,
                            const std::string& etag) const;
  void mark_missing(const RepoId& repo, const std::string& commit, const std::string& file) const;

 private:
  std::string root_;
};

}  // namespace runner::hub
