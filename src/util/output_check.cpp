#include "util/output_check.h"

#include "util/diagnostic.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace runner {
namespace {

// Set by reopen_closed_standard_streams; passed to an exec'd runner-torch
// through the environment, which it clears so that its own children start afresh.
bool standard_output_was_closed = false;
constexpr const char* kClosedOutputVariable = "RUNNER_STANDARD_OUTPUT_WAS_CLOSED";

std::string fix_for(int error_number) {
  if (error_number == EBADF)
    return "run it with standard output open, or sent to a file (> FILE) or to /dev/null, not closed (>&-)";
  if (error_number == EPIPE) return "the command reading the output ended first; nothing else is wrong";
  return "free space on that disk, or send the output elsewhere";
}

// The reason of a failure that happened in an earlier write, when errno no
// longer tells it: a pipe whose reader went away shows POLLERR on its write end.
int earlier_failure(std::ostream& out) {
  if (&out != &std::cout) return 0;
  pollfd p{STDOUT_FILENO, POLLOUT, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLERR) ? EPIPE : 0;
}

}  // namespace

std::string write_failure_reason(int error_number) {
  switch (error_number) {
    case ENOSPC: return "no space is left on the device";
    case EDQUOT: return "the disk quota is used up";
    case EPIPE: return "the reader of the pipe closed it";
    case EFBIG: return "the file grew past the largest the system allows";
    case EBADF: return "standard output is closed";
    case 0: return "the write failed";
    default: return std::strerror(error_number);
  }
}

// errno as a failed write leaves it; another call's errno says nothing of the output.
bool write_error(int error_number) {
  return error_number == ENOSPC || error_number == EDQUOT || error_number == EPIPE || error_number == EFBIG ||
         error_number == EIO;
}

void require_written(std::ostream& out, const std::string& what) {
  // A stream that failed already (output larger than the buffer, such as a
  // completion script, fails while it is written): the failed write's errno,
  // unless a later call replaced it.
  const int before = errno;
  const bool failed_before = !out || (&out == &std::cout && std::ferror(stdout));
  errno = 0;
  out.flush();
  if (&out == &std::cout) std::fflush(stdout);
  bool lost = !out || (&out == &std::cout && std::ferror(stdout));
  if (!lost) return;
  int error_number = errno != 0                             ? errno
                     : failed_before && write_error(before) ? before
                                                            : earlier_failure(out);
  if (&out == &std::cout && error_number == EPIPE) throw StandardOutputReaderLeft();
  throw InputError(make_error(SourceLocation{what, 0, 0, {}}, "",
                              "cannot be written: " + write_failure_reason(error_number) +
                                  "; what was written before is incomplete",
                              fix_for(error_number)));
}

void reopen_closed_standard_streams() {
  if (const char* passed = std::getenv(kClosedOutputVariable)) {
    standard_output_was_closed = std::string(passed) == "1";
    ::unsetenv(kClosedOutputVariable);
  }
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // open() returns the lowest free number, which is this one: the lower ones are open.
    int opened = ::open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
    if (opened != fd && opened >= 0) ::close(opened);
    if (fd == STDOUT_FILENO) standard_output_was_closed = true;
  }
}

void pass_on_closed_standard_output() {
  if (standard_output_was_closed) ::setenv(kClosedOutputVariable, "1", 1);
}

bool standard_output_complete(std::ostream& err) {
  if (standard_output_was_closed) {
    err << make_error(SourceLocation{"standard output", 0, 0, {}}, "",
                      "cannot be written: " + write_failure_reason(EBADF) + "; what the command printed is lost",
                      fix_for(EBADF))
               .format()
        << "\n";
    return false;
  }
  try {
    require_written(std::cout, "standard output");
    return true;
  } catch (const InputError& e) {
    err << e.diagnostic().format() << "\n";
    return false;
  }
}

}  // namespace runner
