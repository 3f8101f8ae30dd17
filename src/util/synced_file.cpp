#include "util/synced_file.h"

#include "util/diagnostic.h"
#include "util/output_check.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <unistd.h>
#include <utility>

namespace runner {

void throw_os_error(const std::string& what, const std::string& path) {
  const int error_number = errno;
  if (error_number == ENOSPC || error_number == EDQUOT || error_number == EFBIG)
    throw InputError(make_error(SourceLocation{path, 0, 0, {}}, "",
                                what + ": " + write_failure_reason(error_number),
                                "free space on that disk, then run the command again (a run continues with "
                                "`runner resume RUN`; train.keep_last keeps fewer checkpoints)"));
  throw std::runtime_error(fmt::format("{} {}: {}", what, path, std::strerror(error_number)));
}

SyncedFile::SyncedFile(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw_os_error("cannot create", path_);
}

SyncedFile::~SyncedFile() {
  if (fd_ >= 0) ::close(fd_);
}

void SyncedFile::append(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot write");
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

void SyncedFile::finish() {
  if (::fsync(fd_) != 0) fail("cannot fsync");
  int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) throw_os_error("cannot close", path_);
}

// The file is closed before the error is raised, with errno kept for its message.
void SyncedFile::fail(const char* what) {
  int saved = errno;
  ::close(std::exchange(fd_, -1));
  errno = saved;
  throw_os_error(what, path_);
}

std::string read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_os_error("cannot read", path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_file_synced(const std::string& path, const std::string& bytes) {
  SyncedFile out(path);
  out.append(bytes);
  out.finish();
}

void fsync_directory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw_os_error("cannot open directory", dir);
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) throw_os_error("cannot fsync directory", dir);
}

}  // namespace runner
