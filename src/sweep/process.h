// Child processes for sweep points: each point runs as its own `runner run`
// process, so that a crash, an abort or a NaN in one point cannot take the
// sweep or the other points down.
#pragma once

#include "util/bounded_command.h"

#include <string>
#include <vector>

namespace runner {

struct ChildExit {
  long pid = 0;
  int exit_code = 0;  // the exit status, or 128 + signal when killed
  int signal = 0;     // the signal that killed it, 0 when it exited
  bool interrupted = false;  // ended by EINTR: no child was reaped
  std::string note;          // why, where the exit code cannot say (a job Slurm no longer knows)
};

// Starts `argv` with stdout and stderr appended to `log_path`. The child gets
// SIGTERM when the sweep process dies (it then checkpoints and stops), so a
// killed sweep leaves no orphans running.
long spawn_child(const std::vector<std::string>& argv, const std::string& log_path);
// Waits for any child; returns interrupted = true when a signal arrived first.
ChildExit wait_any_child();
void terminate_child(long pid);
bool process_alive(long pid);

// SIGINT/SIGTERM/SIGHUP set a flag (and interrupt wait_any_child) instead of killing
// the sweep, which then stops its points cleanly.
void install_sweep_signal_handlers();
int pending_stop_signal();  // 0 when none arrived

// An exclusive lock on `path` (created if needed), not inherited by children;
// returns -1 when another process holds it.
int try_lock_file(const std::string& path);

}  // namespace runner
