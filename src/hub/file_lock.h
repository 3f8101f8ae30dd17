// An exclusive advisory lock on a file (flock), held for the object's life. Two
// runs, or two ranks of one run, that download the same blob take turns; the
// kernel drops the lock when a holder dies, so a killed download blocks nobody.
#pragma once

#include <string>

namespace runner::hub {

class FileLock {
 public:
  explicit FileLock(const std::string& path);  // blocks until the lock is ours
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace runner::hub
