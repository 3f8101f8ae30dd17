// One process at a time trains a run directory. The training process holds an
// open-file-description lock (fcntl F_OFD_SETLK) on <run>/owner.lock for its
// whole life; the kernel drops it when the process ends however it ends (kill
// -9 included), so a lock is never left behind, and a completed run removes the
// file. The file also says who holds it (pid, host, since when) for the refusal
// a second process gets, and
// `ls`/`report` test the lock without taking it to tell a live run from a dead one.
#pragma once

#include <string>

namespace runner {

// Takes the lock of `run_dir` for the rest of this process's life (a second
// call for the same directory does nothing). Throws InputError, exit 2, naming
// the owner when another process holds it.
void own_run_dir(const std::string& run_dir);

// A completed run gives its lock back: owner.lock is removed while still held
// (a process that opened it just before finds, once it holds the lock, that the
// name is gone, and opens the name again), then closed. Nothing when this
// process does not own `run_dir`.
void release_run_dir(const std::string& run_dir);

enum class RunOwner {
  Absent,  // no owner.lock: a run from before the lock, or no run at all
  Live,    // a process holds the lock now
  None,    // the lock file is there, and no process holds it
  NotALock,  // owner.lock is a link, a directory or a FIFO: nothing it says is this run's
};
RunOwner run_owner(const std::string& run_dir);

std::string owner_lock_path(const std::string& run_dir);

}  // namespace runner
