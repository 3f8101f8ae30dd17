// A command started in the background, for tests that signal a running
// process (a sweep, a launcher) and then read how it ended.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace runner::test {

// Starts `command_line` through /bin/sh with stdout and stderr in `log`.
inline pid_t start_command(const std::string& command_line, const std::string& log) {
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    execl("/bin/sh", "sh", "-c", ("exec " + command_line).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// Waits for `pid`: its exit code, or minus the signal that killed it (a
// process that handles a signal exits; one killed by it did not).
inline int wait_exit_code(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1000;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

}  // namespace runner::test
