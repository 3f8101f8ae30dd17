// Output that could not be written is an error, never a silent success: a
// full disk or /dev/full end the command with exit 2 and a message naming what
// was lost. A pipe whose reader went away (`runner predict | head`) stops the
// work at the next write instead of computing output nobody reads, quietly
// (SIGPIPE is ignored, so the write fails with EPIPE).
#pragma once

#include <iosfwd>
#include <stdexcept>
#include <string>

namespace runner {

// The reader of standard output went away (`runner ls | head`): normal for a
// pipe, so the command ends quietly, with the status of a process ended by
// SIGPIPE (as `git log | head` leaves it), which `set -o pipefail` still sees.
struct StandardOutputReaderLeft : std::runtime_error {
  StandardOutputReaderLeft() : std::runtime_error("the reader of standard output closed the pipe") {}
};
constexpr int kExitReaderLeft = 128 + 13;  // 128 + SIGPIPE

// Flushes `out`; throws InputError naming `what` ("standard output", a file)
// and the reason when it or an earlier write failed, StandardOutputReaderLeft
// when `out` is standard output and its pipe has no reader any more.
void require_written(std::ostream& out, const std::string& what);

// The reason a write failed, in words, from its errno.
std::string write_failure_reason(int error_number);

// First thing at start-up: a standard stream the caller closed (`>&-`, `2>&-`)
// is opened again on /dev/null, so that the next file the command opens (a
// run's lock, its log) cannot take the stream's number and receive what was
// meant for the terminal. Standard output that was closed still fails
// standard_output_complete, as a full disk does.
void reopen_closed_standard_streams();

// Before handing the command to another executable (exec): tells it that
// standard output was closed, which its own /dev/null no longer shows.
void pass_on_closed_standard_output();

// At the end of a command: standard output flushed and checked. False, with
// the message written to `err`, when some of it was lost; a reader that left
// throws StandardOutputReaderLeft.
bool standard_output_complete(std::ostream& err);

}  // namespace runner
