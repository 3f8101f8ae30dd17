// Runs a command line under /usr/bin/time and reads back how long it took and
// its peak memory, for the tests that promise hostile input is refused "within
// a second and under 1 GB".
#pragma once

#include "shared.h"

#include <string>

namespace runner::test {

struct BoundedResult {
  int exit_code = -1;
  std::string out;       // stdout and stderr, the time report removed
  double seconds = -1;   // wall clock
  long peak_mib = -1;    // maximum resident set size
};

// `command_line` is "PROGRAM ARGS... [< FILE]"; a pipe may feed it ("X | PROGRAM ...").
inline BoundedResult run_bounded(const std::string& command_line) {
  std::string cmd = command_line;
  size_t bar = cmd.rfind(" | ");
  std::string timed = "/usr/bin/time -f '@@time %e %M'";
  cmd = bar == std::string::npos ? timed + " " + cmd : cmd.substr(0, bar + 3) + timed + " " + cmd.substr(bar + 3);
  CommandResult r = run_command(cmd);
  BoundedResult b{r.exit_code, r.out};
  size_t at = r.out.rfind("@@time ");
  if (at != std::string::npos) {
    double sec = 0;
    long kib = 0;
    if (std::sscanf(r.out.c_str() + at, "@@time %lf %ld", &sec, &kib) == 2) {
      b.seconds = sec;
      b.peak_mib = kib / 1024;
    }
    b.out = r.out.substr(0, at);
  }
  return b;
}

}  // namespace runner::test
