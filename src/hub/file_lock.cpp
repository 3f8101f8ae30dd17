#include "hub/file_lock.h"

#include "util/diagnostic.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

namespace runner::hub {

FileLock::FileLock(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  int rc = fd_ < 0 ? -1 : 0;
  while (rc == 0 && ::flock(fd_, LOCK_EX) != 0) {
    if (errno != EINTR) rc = -1;
  }
  if (rc != 0) {
    std::string why = fd_ < 0 ? "the lock file could not be opened" : "the lock could not be taken";
    if (fd_ >= 0) ::close(fd_);
    throw InputError(make_error(SourceLocation{path, 0, 0, {}}, "", "cannot lock the download: " + why,
                                "check that the cache folder is writable, or point HF_HUB_CACHE elsewhere"));
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace runner::hub
