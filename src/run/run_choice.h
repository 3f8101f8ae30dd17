// Where a session trains: a new run directory, or one it continues. Rank 0
// makes the choice (run/run_training.cpp) and the other ranks follow it; the
// text form below is only what travels between the ranks. Free of LibTorch.
#pragma once

#include <string>

namespace runner {

struct RunChoice {
  enum class Kind { New, Resume };
  Kind kind = Kind::New;
  std::string dir;  // absolute, so that every path the run records reads the same after a resume
  bool resuming() const { return kind == Kind::Resume; }
};

// "new:DIR" or "resume:DIR": the form rank 0 sends to the other ranks.
std::string run_choice_text(const RunChoice& choice);
// The choice a run_choice_text() holds. Anything else (an empty or a cut
// message) throws std::runtime_error: the ranks would train in different places.
RunChoice run_choice_from_text(const std::string& text);

}  // namespace runner
