#include "util/bounded_command.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace runner {
namespace {

[[noreturn]] void exec_client(const std::vector<std::string>& argv, int out_fd, int err_fd) {
  setpgid(0, 0);  // its own group: a kill reaches what it started too
  // A mask survives exec: a training run blocks its stop signals outside the
  // thread that takes them, and the program must get them as usual.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // Nothing to read: a program that asks the terminal for input gets end of file, not a wait.
  const int nothing = open("/dev/null", O_RDONLY);
  if (nothing >= 0) dup2(nothing, 0);
  dup2(out_fd, 1);
  dup2(err_fd, 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  _exit(127);
}

// Reads both pipes to their end, or until `deadline` (moved 2 s ahead of now
// when a stop signal arrives) or a stream's kMaxCommandOutput; false when it
// had to stop reading.
bool read_outputs(int out_fd, int err_fd, CommandOutput& out, std::chrono::steady_clock::time_point deadline,
                  const std::function<bool()>& stop_requested) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&out.out, &out.err};
  int open_fds = 2;
  bool grace = false;
  char buf[4096];
  while (open_fds > 0) {
    const auto now = std::chrono::steady_clock::now();
    if (!grace && stop_requested && stop_requested()) {
      grace = true;
      deadline = std::min(deadline, now + std::chrono::seconds(2));
    }
    if (now >= deadline) {
      (grace ? out.stopped : out.timed_out) = true;
      return false;
    }
    const int wait_ms = static_cast<int>(std::min<long long>(
        200, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1));
    if (poll(fds, 2, wait_ms) < 0 && errno != EINTR) return false;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
        out.text.append(buf, static_cast<size_t>(n));
        if (sinks[i]->size() > kMaxCommandOutput) {
          out.overflowed = true;
          return false;
        }
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  return true;
}

}  // namespace

CommandOutput run_command(const std::vector<std::string>& argv, double time_limit_s,
                          const std::function<bool()>& stop_requested) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return {};
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return {};
  }
  const pid_t pid = fork();
  if (pid == 0) exec_client(argv, out_pipe[1], err_pipe[1]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  CommandOutput out;
  if (pid < 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    return out;
  }
  setpgid(pid, pid);  // as the child does: whichever runs first
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long long>(time_limit_s * 1000));
  const bool whole = read_outputs(out_pipe[0], err_pipe[0], out, deadline, stop_requested);
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  if (whole) {  // its output is closed, but it may still run: the same limit holds
    while (waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() >= deadline) {
        out.timed_out = true;
        break;
      }
      usleep(20000);
    }
  }
  if (out.timed_out || out.stopped || out.overflowed) {
    kill(-pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  out.started = out.exit_code != 127;
  return out;
}

}  // namespace runner
