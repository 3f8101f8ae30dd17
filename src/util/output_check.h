// Output that could not be written is an error, never a silent success: a
// full disk, /dev/full, or a pipe whose reader went away (`runner predict |
// head`) end the command with exit 2 and a message naming what was lost, and a
// closed pipe stops the work at the next write instead of computing output
// nobody reads (SIGPIPE is ignored, so the write fails with EPIPE).
#pragma once

#include <iosfwd>
#include <string>

namespace runner {

// Flushes `out`; throws InputError naming `what` ("standard output", a file)
// and the reason when it or an earlier write failed.
void require_written(std::ostream& out, const std::string& what);

// The reason a write failed, in words, from its errno.
std::string write_failure_reason(int error_number);

// At the end of a command: standard output flushed and checked. False, with
// the message written to `err`, when some of it was lost.
bool standard_output_complete(std::ostream& err);

}  // namespace runner
