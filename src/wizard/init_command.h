// `runner init [RECIPE] [--defaults]`: a recipe from a few questions, in the
// spirit of `accelerate config`, checked with the same validation as
// `runner validate` before it is put in place.
#pragma once

#include "recipe/rules.h"

#include <iosfwd>
#include <string>

namespace runner {

struct InitOptions {
  std::string path = "recipe.toml";
  bool defaults = false;          // --defaults: no questions
  bool force = false;             // --force: replace an existing file without asking
  bool on_terminal = false;       // standard input and output are a terminal
  Capabilities caps;              // what this build and machine offer
  unsigned cpus = 1;              // the most processes offered
};

// 0 written and valid; 2 refused (no terminal, an existing file kept, answers
// ended early, or a recipe that does not validate): nothing is written then.
int run_init_command(const InitOptions& options, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace runner
