#include "recipe/parse.h"

#include "util/diagnostic.h"
#include "util/input_file.h"

#include <fmt/format.h>

#include <filesystem>

namespace runner {

static bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

namespace {

// A recipe's first line that is neither blank nor a comment tells the formats
// apart: a [table] or `key = value` is TOML, `key: value` or `---` is YAML.
bool looks_like_yaml(const std::string& text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? text.size() : end + 1;
    size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    if (line.compare(first, 3, "---") == 0) return true;
    if (line[first] == '[') return false;
    size_t colon = line.find(':'), equals = line.find('=');
    return colon != std::string::npos && (equals == std::string::npos || colon < equals);
  }
  return false;
}

}  // namespace

ParsedFile parse_recipe_text(const std::string& text, const std::string& path) {
  bool is_toml = ends_with(path, ".toml");
  bool is_yaml = ends_with(path, ".yaml") || ends_with(path, ".yml");
  if (!is_toml && !is_yaml) is_yaml = looks_like_yaml(text);
  return is_yaml ? parse_yaml_text(text, path) : parse_toml_text(text, path);
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
