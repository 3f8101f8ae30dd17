// The recipe a run was started with, kept in its run directory: the file as
// given (with every file it extends) and the resolved recipe. Free of LibTorch.
#pragma once

#include "recipe/recipe.h"
#include "run/run_dir.h"

namespace runner {

// The recipe file (and every file it extends) copied byte for byte:
// recipe.given.<ext> and recipe.given.d/<name> for extended files.
void copy_given_recipe(const Recipe& recipe, const RunPaths& paths);
// recipe.resolved.json: every option with its default, paths absolute.
void write_resolved_recipe(const Recipe& recipe, const RunPaths& paths);
}  // namespace runner
