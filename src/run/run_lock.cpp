#include "run/run_lock.h"

#include "run/run_dir.h"
#include "run/run_summary.h"
#include "util/diagnostic.h"
#include "util/json_input.h"
#include "util/process_info.h"
#include "util/utf8.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <mutex>
#include <optional>
#include <map>
#include <set>
#include <thread>

namespace runner {
namespace {

struct flock whole_file(short type) {
  struct flock l{};
  l.l_type = type;
  l.l_whence = SEEK_SET;
  l.l_start = 0;
  l.l_len = 0;  // to the end of the file, however long it grows
  return l;
}

// What the owner wrote into the lock file, for the refusal's message. The owner
// writes it just after taking the lock: a refusal that comes in between reads
// nothing that parses, or the record of the owner before it (a process that has
// ended), and waits a moment (up to 0.5 s) for the new owner's.
std::string owner_words(int fd) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    char text[4096];
    ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
    std::string why;
    std::optional<nlohmann::json> owner = try_parse_json(std::string(text, n > 0 ? static_cast<size_t>(n) : 0), why);
    std::optional<ProcessIdentity> who = owner ? process_from_json(*owner) : std::nullopt;
    if (owner && !(who && process_state(*who) == ProcessState::Gone))
      return terminal_safe(fmt::format("process {} on {} since {}", record_integer(*owner, "pid"),
                                       record_string(*owner, "host", "?"),
                                       record_string(*owner, "since_utc", "?")));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return "another process";
}

void write_owner(int fd) {
  ProcessIdentity me = current_process();
  nlohmann::json record = process_json(me);  // with the boot and start time, which tell a reused pid
  record["since_utc"] = utc_timestamp();
  std::string text = record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  // The record only names the owner for others' messages; the lock itself is
  // the fact, so a record that could not be written (a full disk) changes nothing.
  // Written over the previous owner's record, then cut to length: the file is never empty.
  bool written = ::pwrite(fd, text.data(), text.size(), 0) == ssize_t(text.size()) &&
                 ::ftruncate(fd, static_cast<off_t>(text.size())) == 0;
  (void)written;
}

// Why a file cannot be a run's lock file ("" when it can: one regular file).
// Through a symbolic or hard link the lock and the owner record would land on
// a file elsewhere (overwriting it); opening a FIFO to read waits for a writer.
std::string not_a_lock(const struct stat& st) {
  if (S_ISLNK(st.st_mode)) return "a symbolic link";
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (!S_ISREG(st.st_mode)) return "a special file (a FIFO, a socket or a device)";
  if (st.st_nlink > 1) return fmt::format("a file with {} names (a hard link)", st.st_nlink);
  return "";
}

// Opens the lock file without following a link or blocking on a FIFO; -1 with
// `foreign` set when something other than a lock file is in its place.
int open_lock_file(const std::string& path, int flags, std::string& foreign) {
  int fd = ::open(path.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  struct stat st {};
  if (fd < 0) {
    int err = errno;
    if (::lstat(path.c_str(), &st) == 0) foreign = not_a_lock(st);
    errno = err;
    return -1;
  }
  if (::fstat(fd, &st) == 0) foreign = not_a_lock(st);
  if (foreign.empty()) return fd;
  ::close(fd);
  return -1;
}

// The trainer that summary.json names, when it is alive on this host (pid,
// boot and start time agree) and is not this process; "" otherwise. A lock
// file removed or renamed while its owner trains is no lock any more (this
// process was just granted a new file's), but the owner's heartbeat still names it.
std::string recorded_live_owner(const std::string& run_dir) {
  const RunPaths paths{run_dir};
  std::error_code ec;
  if (!has_run_summary(paths, ec)) return "";  // not a regular file: resume's own checks name it
  // Unreadable: nothing names a live owner.
  std::optional<RunSummary> summary = read_run_summary_if_readable(paths);
  if (!summary || summary->status != "running") return "";
  const std::optional<ProcessIdentity>& owner = summary->owner;
  if (!owner || owner->pid == current_process().pid || process_state(*owner) != ProcessState::Alive) return "";
  return terminal_safe(fmt::format("process {} on {} (summary.json's heartbeat at {})", owner->pid,
                                   owner->host, summary->heartbeat_utc.empty() ? "?" : summary->heartbeat_utc));
}

[[noreturn]] void refuse_lock(const std::string& run_dir, const std::string& path, const std::string& what,
                         const std::string& fix) {
  throw InputError(make_error(SourceLocation{path, 0, 0, {}}, "", what + "; nothing in " + run_dir + " was changed",
                              fix));
}

}  // namespace

std::string owner_lock_path(const std::string& run_dir) { return run_dir + "/owner.lock"; }

namespace {

const char* const kTwoTrainersFix =
    "wait until it ends (`runner ls` shows it running), or stop that process; two processes training one "
    "run would overwrite each other's checkpoints";

// The run's lock file, opened for writing; `created` says whether this call
// made it (a refusal then removes it again, so that `ls` does not read the
// new file nobody holds as the run having died).
int open_own_lock(const std::string& run_dir, const std::string& path, bool& created) {
  std::string foreign;
  int fd = open_lock_file(path, O_RDWR, foreign);
  created = fd < 0 && errno == ENOENT && foreign.empty();
  if (created) fd = open_lock_file(path, O_RDWR | O_CREAT | O_EXCL, foreign);
  if (fd < 0 && errno == EEXIST) created = false, fd = open_lock_file(path, O_RDWR, foreign);  // made just now
  if (!foreign.empty())
    refuse_lock(run_dir, path, "the run's lock file is " + foreign + ", which the runner never makes",
                "remove it (rm " + path + ") and start again; the runner makes a new one");
  if (fd < 0)
    refuse_lock(run_dir, path, fmt::format("cannot open the run's lock file ({})", std::strerror(errno)),
                "check that the run directory exists and is writable");
  return fd;
}

// Whether `path` still names the file `fd` has open: a run that completed
// removes its lock file, so one opened just before that is no lock any more.
bool still_named(int fd, const std::string& path) {
  struct stat held {}, named {};
  return ::fstat(fd, &held) == 0 && ::lstat(path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
         held.st_ino == named.st_ino;
}

// The run's lock file, opened and locked: the file `path` names once the lock
// is held (a completed owner's removal in between means opening the new one).
int lock_run_file(const std::string& run_dir, const std::string& path, bool& created) {
  for (int attempt = 1;; ++attempt) {
    const int fd = open_own_lock(run_dir, path, created);
    struct flock l = whole_file(F_WRLCK);
    if (::fcntl(fd, F_OFD_SETLK, &l) != 0) {
      int err = errno;
      std::string owner = owner_words(fd);
      ::close(fd);
      if (err == EAGAIN || err == EACCES)
        refuse_lock(run_dir, path, "this run is being trained by " + owner, kTwoTrainersFix);
      refuse_lock(run_dir, path, fmt::format("cannot lock the run ({})", std::strerror(err)),
                  "put the runs folder on a file system that supports locks (run.output_dir)");
    }
    if (still_named(fd, path) || attempt == 5) return fd;
    ::close(fd);
  }
}

std::mutex owned_mutex;
std::map<std::string, int> owned;  // run directory -> its lock's descriptor, open while owned

}  // namespace

void own_run_dir(const std::string& run_dir) {
  std::lock_guard<std::mutex> lock(owned_mutex);
  if (owned.count(run_dir)) return;
  const std::string path = owner_lock_path(run_dir);
  bool created = false;
  const int fd = lock_run_file(run_dir, path, created);
  if (std::string owner = recorded_live_owner(run_dir); !owner.empty()) {
    if (created) ::unlink(path.c_str());
    ::close(fd);
    refuse_lock(run_dir, path, "this run is being trained by " + owner + ", whose lock file was removed or replaced",
                kTwoTrainersFix);
  }
  write_owner(fd);
  owned[run_dir] = fd;
}

void release_run_dir(const std::string& run_dir) {
  std::lock_guard<std::mutex> lock(owned_mutex);
  auto it = owned.find(run_dir);
  if (it == owned.end()) return;
  const std::string path = owner_lock_path(run_dir);
  // Removed while still held, so that no process finds the file unlocked and
  // takes a completed run's leftover as its own.
  if (still_named(it->second, path)) ::unlink(path.c_str());
  ::close(it->second);
  owned.erase(it);
}

RunOwner run_owner(const std::string& run_dir) {
  std::string foreign;
  int fd = open_lock_file(owner_lock_path(run_dir), O_RDONLY, foreign);
  if (!foreign.empty()) return RunOwner::NotALock;
  if (fd < 0) return RunOwner::Absent;
  struct flock l = whole_file(F_WRLCK);  // would a writer's lock be granted? F_OFD_GETLK takes nothing
  int rc = ::fcntl(fd, F_OFD_GETLK, &l);
  ::close(fd);
  if (rc != 0) return RunOwner::Absent;
  return l.l_type == F_UNLCK ? RunOwner::None : RunOwner::Live;
}

}  // namespace runner
