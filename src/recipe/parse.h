// Reading one recipe file (TOML or YAML) into a located Value tree.
#pragma once

#include "recipe/value.h"

#include <optional>
#include <string>

namespace runner {

struct ParsedFile {
  std::optional<Value> root;  // a table; empty when the file could not be read or parsed
  Diagnostics diags;
};

// Picks the format by extension: .toml, .yaml or .yml.
ParsedFile parse_recipe_file(const std::string& path);
// A recipe that is not a file (standard input): TOML or YAML by `path`'s
// extension when it has one, else by its content.
ParsedFile parse_recipe_text(const std::string& text, const std::string& path);
ParsedFile parse_toml_text(const std::string& text, const std::string& path);
ParsedFile parse_yaml_text(const std::string& text, const std::string& path);

}  // namespace runner
