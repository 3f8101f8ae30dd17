// Finding run directories: the runs of one name under run.output_dir, the
// newest unfinished one (`runner run --resume auto`), and every run under a
// folder (`runner ls`, reports, bare run names on the command line). A run
// directory is one that holds env.json or summary.json. Free of LibTorch.
#pragma once

#include <string>
#include <vector>

namespace runner {

// Run directories of `run_name` under output_dir, oldest first (their names
// start with the UTC time).
std::vector<std::string> list_run_dirs(const std::string& output_dir, const std::string& run_name);

// The newest run directory of `run_name` with an env.json whose summary does
// not say completed (an unreadable summary is a run killed early), or empty.
std::string newest_unfinished_run(const std::string& output_dir, const std::string& run_name);

// Whether `dir` holds the records of a run (env.json or summary.json); a
// folder that cannot be looked into is none.
bool looks_like_run_dir(const std::string& dir);

// Run directories under `root` (itself included), at most `depth` levels down:
// runs/<name>/<time>-<id>/ and sweeps' runs/<sweep>/<point>/<time>-<id>/.
// A folder that cannot be read (no permission, an I/O error) is listed in
// `unreadable` with the reason, and the search goes on past it.
struct RunDirSearch {
  std::vector<std::string> runs;
  struct Unreadable {
    std::string path, why;
  };
  std::vector<Unreadable> unreadable;
};
RunDirSearch search_run_dirs(const std::string& root, int depth = 4);
std::vector<std::string> find_run_dirs(const std::string& root, int depth = 4);  // the runs alone

}  // namespace runner
