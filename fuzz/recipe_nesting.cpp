// Recipes nested as deep as the input asks, in every form the parsers recurse
// on, through `runner validate`. The first byte picks the form, the next two
// the depth (up to 65,535 levels, past what a fuzzer's input length would
// reach by itself), and the rest is the text at the innermost level, so the
// mutations reach the limit's edges: depth 64 and 65, strings, comments and
// quotes around the dots and brackets. Block mappings indent each level one
// space deeper, so their text grows with the square of the depth: they stop at
// 2,047 levels (2 MB), where 65,535 would be 2 GB of the target's own text.
#include "fuzz_support.h"
#include "fuzz_targets.h"

#include <algorithm>
#include <string>

namespace runner::fuzz {
namespace {

struct Form {
  const char* file;    // the extension picks the parser
  const char* open;    // repeated `depth` times before the innermost text
  const char* close;   // repeated `depth` times after it
  const char* before;  // once, before the first `open`
  const char* after;   // once, after the last `close`
};

// TOML dotted keys, [table] headers, arrays and inline tables; YAML flow lists
// and mappings, JSON written as YAML, and block mappings (indentation).
const Form kForms[] = {
    {"recipe.toml", "a.", "", "", " = 1\n"},
    {"recipe.toml", "a.", "", "[", "a]\nx = 1\n"},
    {"recipe.toml", "[", "]", "x = ", "\n"},
    {"recipe.toml", "{a = ", "}", "x = ", "\n"},
    {"recipe.yaml", "[", "]", "x: ", "\n"},
    {"recipe.yaml", "{a: ", "}", "x: ", "\n"},
    {"recipe.yaml", "{\"a\": ", "}", "", "\n"},
    {"recipe.yaml", "", "", "", ""},  // block mappings, built below
};

std::string block_mappings(size_t depth, std::string_view inner) {
  std::string text;
  for (size_t level = 0; level < depth; ++level) text += std::string(level, ' ') + "a:\n";
  return text + std::string(depth, ' ') + std::string(inner) + "\n";
}

std::string nested(const Form& f, size_t depth, std::string_view inner) {
  std::string text = f.before;
  for (size_t k = 0; k < depth; ++k) text += f.open;
  text += inner;
  for (size_t k = 0; k < depth; ++k) text += f.close;
  return text + f.after;
}

}  // namespace

void recipe_nesting(std::string_view bytes) {
  if (bytes.size() < 3) return;
  const size_t forms = sizeof kForms / sizeof kForms[0];
  const size_t which = static_cast<unsigned char>(bytes[0]) % forms;
  const size_t depth = static_cast<unsigned char>(bytes[1]) << 8 | static_cast<unsigned char>(bytes[2]);
  const std::string_view inner = bytes.substr(3);
  const Form& f = kForms[which];
  const bool block = which + 1 == forms;
  const std::string text = block ? block_mappings(std::min<size_t>(depth, 2047), inner) : nested(f, depth, inner);
  validate_recipe(write_scratch(f.file, text));
}

}  // namespace runner::fuzz
