#include "run/run_search.h"

#include "run/run_dir.h"
#include "run/run_summary.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <set>

namespace runner {
namespace fs = std::filesystem;

std::vector<std::string> list_run_dirs(const std::string& output_dir, const std::string& run_name) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(output_dir + "/" + run_name, ec))
    if (e.is_directory()) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());  // names start with the UTC time
  return out;
}

std::string newest_unfinished_run(const std::string& output_dir, const std::string& run_name) {
  auto dirs = list_run_dirs(output_dir, run_name);
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) {
    RunPaths p{*it};
    if (!fs::exists(p.env())) continue;
    std::optional<RunSummary> summary = read_run_summary_if_readable(p);
    if (!summary || !summary->completed()) return *it;
  }
  return {};
}

bool looks_like_run_dir(const std::string& dir) {
  RunPaths p{dir};
  std::error_code ec;
  return has_run_summary(p, ec) || fs::is_regular_file(p.env(), ec);
}

namespace {

// The OS's reason in words of its own (strerror), without the library's
// "filesystem error: status:" framing.
std::string reason_of(const std::error_code& ec) { return ec.message(); }

// Folders already searched, by device and inode: a symbolic link back up the
// tree (`loop -> .`) or a second name for a folder lists its runs once.
using SeenFolders = std::set<std::pair<dev_t, ino_t>>;

bool first_visit(const fs::path& folder, SeenFolders& seen) {
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) return true;  // its error is reported where it is read
  return seen.insert({st.st_dev, st.st_ino}).second;
}

void search_into(const fs::path& root, int depth, RunDirSearch& found, SeenFolders& seen) {
  if (!first_visit(root, seen)) return;
  std::error_code ec;
  RunPaths p{root.string()};
  bool summary = has_run_summary(p, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    found.unreadable.push_back({root.string(), reason_of(ec)});
    return;
  }
  if (summary || fs::is_regular_file(p.env(), ec)) {
    found.runs.push_back(root.string());
    return;
  }
  if (depth <= 0) return;
  fs::directory_iterator it(root, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code entry_ec;
    bool is_dir = it->is_directory(entry_ec);
    if (!is_dir || it->path().filename() == "checkpoints") continue;
    search_into(it->path(), depth - 1, found, seen);
  }
  // At the start or part way; a folder that vanished meanwhile (a process's
  // /proc entry) is no longer there to be listed.
  if (ec && ec != std::errc::no_such_file_or_directory) found.unreadable.push_back({root.string(), reason_of(ec)});
}

}  // namespace

RunDirSearch search_run_dirs(const std::string& root, int depth) {
  RunDirSearch found;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return found;
  SeenFolders seen;
  search_into(root, depth, found, seen);
  return found;
}

std::vector<std::string> find_run_dirs(const std::string& root, int depth) {
  return search_run_dirs(root, depth).runs;
}

}  // namespace runner
