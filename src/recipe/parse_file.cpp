#include "recipe/parse.h"

#include "util/diagnostic.h"
#include "util/input_file.h"

#include <fmt/format.h>

#include <filesystem>

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
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    out.diags.push_back(make_error(SourceLocation{path, 0, 0, {}}, "",
                                   "cannot open the recipe file: no such file or not readable"));
    return out;
  }
  std::string text;
  try {  // a directory, /dev/zero or a FIFO would otherwise hang or read forever
    text = read_input_file({path, "", kMaxDocumentBytes, "check the recipe path"});
  } catch (const InputError& e) {
    out.diags.push_back(e.diagnostic());
    return out;
  }
  return is_toml ? parse_toml_text(text, path) : parse_yaml_text(text, path);
}

}  // namespace runner
