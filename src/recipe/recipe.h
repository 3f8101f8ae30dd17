// A recipe, from file to validated, fully resolved configuration.
#pragma once

#include "recipe/rules.h"
#include "recipe/value.h"
#include "registry/registry.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace runner {

struct RecipeRequest {
  std::string path;
  std::vector<std::string> overrides;  // "--set" values, applied in order
  bool check_paths = true;
  Capabilities caps;
  // The recipe's text when it comes from standard input (`path` then names it in messages).
  std::optional<std::string> text;
};

struct Recipe {
  std::string path;
  std::vector<std::string> files;   // the recipe and every file it extends
  Value tree;                       // as written: merged, interpolated, overridden
  nlohmann::ordered_json resolved;  // every option, defaults filled, paths absolute

  nlohmann::json section(const std::string& name) const;  // a resolved section
  SourceLocation location_of(const std::string& key_path) const;
};

struct RecipeLoad {
  std::optional<Recipe> recipe;  // set when there is no error (warnings may remain)
  Diagnostics diags;             // every problem found, not only the first
};

// Reads, merges, interpolates, loads plugins, applies overrides, checks every
// option and the cross-field rules, validates against the generated schema.
RecipeLoad load_recipe(const RecipeRequest& request, Registry& reg);

}  // namespace runner
