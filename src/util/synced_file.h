// Plain file IO that survives a crash: a file written whole and fsynced, a
// directory's entries fsynced, a file read whole. Checkpoints (train/) and the
// run's records (run/) are both written through it. Free of LibTorch.
#pragma once

#include <string>
#include <string_view>

namespace runner {

// A failed system call on `path` with errno as it is: a full disk (or quota, or
// file size limit) is an InputError with the fix, as for any bad input the
// user can mend; another failure is a std::runtime_error naming the OS error.
[[noreturn]] void throw_os_error(const std::string& what, const std::string& path);

// A file open for writing, closed (without fsync) if it is not finished.
class SyncedFile {
 public:
  explicit SyncedFile(std::string path);
  SyncedFile(const SyncedFile&) = delete;
  SyncedFile& operator=(const SyncedFile&) = delete;
  ~SyncedFile();
  void append(std::string_view bytes);
  void finish();  // fsync and close; throws as throw_os_error does

 private:
  [[noreturn]] void fail(const char* what);
  std::string path_;
  int fd_ = -1;
};

// Writes a whole file and fsyncs it (no directory fsync); throws on failure.
void write_file_synced(const std::string& path, const std::string& bytes);
void fsync_directory(const std::string& dir);
std::string read_file_bytes(const std::string& path);  // throws as throw_os_error does

}  // namespace runner
