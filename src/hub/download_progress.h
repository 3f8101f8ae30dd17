// What a download shows while it runs: on a terminal, a bar redrawn in place
// with the size and speed; otherwise (a log, a Slurm job) one line per file.
#pragma once

#include <chrono>
#include <string>

namespace runner::hub {

class DownloadProgress {
 public:
  DownloadProgress(std::string what, long long total_bytes, bool bar);
  void update(long long bytes);  // redraws at most ten times a second
  void finish(long long bytes);  // the file's closing line

 private:
  double seconds() const;
  std::string what_;
  long long total_;
  bool bar_;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

std::string human_bytes(long long bytes);  // "231.5 kB", "8.1 MB"

}  // namespace runner::hub
