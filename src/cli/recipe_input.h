// Where a command's recipe comes from: a file, or, for the commands that only
// read it (validate, print-config), standard input named as `-` or /dev/stdin,
// so that a generated recipe can be piped in.
#pragma once

#include "recipe/recipe.h"

#include <string>

namespace runner {

// `-`, or a path that is this process's standard input (/dev/stdin, /dev/fd/0).
bool names_standard_input(const std::string& path);

// The request for `path`; a recipe from standard input is read here, whole.
// `stdin_allowed` false: a command that keeps a copy of its recipe file (run,
// launch) refuses standard input with an InputError naming the fix.
RecipeRequest recipe_request(const std::string& path, bool stdin_allowed);

// What recipe_request has read of standard input, null when nothing: the front
// hands it on to the full runner with the command (cli/full_runner.h).
const std::string* standard_input_taken();

}  // namespace runner
