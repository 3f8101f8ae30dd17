#pragma once

#include "recipe/value.h"

#include <optional>
#include <string>
#include <vector>

namespace runner {

struct LoadedTree {
  std::optional<Value> root;        // merged tree, `extends` removed, env interpolated
  std::vector<std::string> files;   // every file read, the given one first
  Diagnostics diags;
};

// Reads a recipe and, depth-first, every recipe it `extends` (a string or a list,
// relative to the file naming it; ${VAR} interpolated like every string). Bases merge in order, the file itself wins;
// `plugins` lists are concatenated instead of replaced. A cycle is an error
// naming the whole cycle.
// `text`, when given, is the recipe's own text (read from standard input), and
// `path` only names it in messages; its `extends` are relative to the current folder.
LoadedTree load_recipe_tree(const std::string& path, const std::optional<std::string>& text = std::nullopt);

}  // namespace runner
