// Running a short program with a time limit and capturing what it prints.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace runner {

// A program's exit and what it printed.
struct CommandOutput {
  bool started = false;  // false: the program could not be run (not on PATH)
  int exit_code = 0;
  std::string text;      // stdout and stderr together, as they came
  std::string out, err;  // each alone: the answer is read from stdout, stderr is shown
  bool timed_out = false;  // it ran past its time limit and was killed
  bool stopped = false;    // a stop signal came and it was killed after a short grace
  bool overflowed = false; // it printed more than kMaxCommandOutput on one stream and was killed
};

// What is kept of each stream: a client's answer or a metric object is a few
// lines, so a program that prints more is broken (or `yes`) and is stopped
// before its output fills the memory.
constexpr size_t kMaxCommandOutput = 4u << 20;
// Runs `argv` (argv[0] looked up on PATH, stdin /dev/null) and captures its
// output: a client command (sbatch, scancel) or a user's metric program. It runs
// in a process group of its own, which is killed once `time_limit_s` has passed
// or 2 s after `stop_requested` first says yes, or once it prints more than
// kMaxCommandOutput: a hung program or a child of it that keeps the output open
// can neither hang the caller nor outlive it.
CommandOutput run_command(const std::vector<std::string>& argv, double time_limit_s,
                          const std::function<bool()>& stop_requested = {});

}  // namespace runner
