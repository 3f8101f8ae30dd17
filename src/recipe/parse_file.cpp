#include "recipe/parse.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

namespace runner {

static bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

ParsedFile parse_recipe_file(const std::string& path) {
  ParsedFile out;
  bool is_toml = ends_with(path, ".toml");
  bool is_yaml = ends_with(path, ".yaml") || ends_with(path, ".yml");
  if (!is_toml && !is_yaml) {
    out.diags.push_back(make_error(SourceLocation{path, 0, 0, {}}, "",
                                   "unknown recipe format: expected a .toml, .yaml or .yml file"));
    return out;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    out.diags.push_back(make_error(SourceLocation{path, 0, 0, {}}, "",
                                   "cannot open the recipe file: no such file or not readable"));
    return out;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return is_toml ? parse_toml_text(ss.str(), path) : parse_yaml_text(ss.str(), path);
}

}  // namespace runner
