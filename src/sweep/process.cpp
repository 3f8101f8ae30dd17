#include "sweep/process.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace runner {
namespace {

volatile std::sig_atomic_t stop_signal = 0;

void on_stop_signal(int sig) { stop_signal = sig; }

[[noreturn]] void exec_child(const std::vector<std::string>& argv, const std::string& log_path,
                             pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(143);  // the sweep died before prctl took effect
  int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  dprintf(2, "error: cannot start %s: %s\n", args[0], std::strerror(errno));
  _exit(127);
}

}  // namespace

long spawn_child(const std::vector<std::string>& argv, const std::string& log_path) {
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) exec_child(argv, log_path, parent);
  return pid;
}

ChildExit wait_any_child() {
  ChildExit out;
  int status = 0;
  pid_t pid = waitpid(-1, &status, 0);
  if (pid < 0) {
    out.interrupted = true;
    return out;
  }
  out.pid = pid;
  if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
    out.exit_code = 128 + out.signal;
  } else {
    out.exit_code = WEXITSTATUS(status);
  }
  return out;
}

void terminate_child(long pid) { kill(static_cast<pid_t>(pid), SIGTERM); }

bool process_alive(long pid) { return pid > 0 && kill(static_cast<pid_t>(pid), 0) == 0; }

void install_sweep_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: waitpid returns EINTR so the loop sees the signal
  // SIGHUP: a dropped ssh session stops the points as SIGTERM does.
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

int pending_stop_signal() { return stop_signal; }

int try_lock_file(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace runner
