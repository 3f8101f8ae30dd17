#include "recipe/parse.h"

#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include <fmt/format.h>

#include <optional>
#include <sstream>

namespace runner {
namespace {

SourceLocation where(const toml::source_region& r, const std::string& path) {
  return SourceLocation{path, static_cast<int>(r.begin.line), static_cast<int>(r.begin.column), {}};
}

Value convert(const toml::node& node, const std::string& path, Diagnostics& diags) {
  Value v;
  v.loc = where(node.source(), path);
  if (auto t = node.as_table()) {
    v.type = Value::Type::Table;
    for (const auto& [key, child] : *t) {
      Value c = convert(child, path, diags);
      // A key's own position is more useful than its value's for tables.
      if (c.is_table()) c.loc = where(key.source(), path);
      v.table.emplace_back(std::string(key.str()), std::move(c));
    }
  } else if (auto a = node.as_array()) {
    v.type = Value::Type::List;
    for (const auto& child : *a) v.list.push_back(convert(child, path, diags));
  } else if (auto s = node.as_string()) {
    v.type = Value::Type::String;
    v.s = s->get();
  } else if (auto i = node.as_integer()) {
    v.type = Value::Type::Int;
    v.i = i->get();
  } else if (auto f = node.as_floating_point()) {
    v.type = Value::Type::Float;
    v.f = f->get();
  } else if (auto b = node.as_boolean()) {
    v.type = Value::Type::Bool;
    v.b = b->get();
  } else {
    diags.push_back(make_error(v.loc, "", "dates and times are not recipe values",
                               "write the value as a string"));
  }
  return v;
}

// toml++ recurses once per part of a dotted key and per nested table, while it
// builds the tree and again when it frees it: a key of 20,000 parts overflows the
// stack. A recipe nests three or four levels, so the text is read first, cheaply
// and without recursion, and a key or a value nested deeper than this is refused.
constexpr int kMaxTomlDepth = 64;

// A position in the text, with its 1-based line and column for the message.
struct TextCursor {
  const std::string& text;
  size_t at = 0;
  int line = 1, column = 1;

  bool done() const { return at >= text.size(); }
  char peek(size_t ahead = 0) const { return at + ahead < text.size() ? text[at + ahead] : '\0'; }
  void step() {
    if (text[at] == '\n') line += 1, column = 0;
    ++at;
    ++column;
  }
  void skip(size_t n) {
    for (size_t k = 0; k < n && !done(); ++k) step();
  }
};

// Moves past the string that starts at the cursor: "...", '...', or either
// quote tripled for a multi-line string. An unterminated one ends the scan;
// the parser names it.
void skip_string(TextCursor& c) {
  const char quote = c.peek();
  const bool multi = c.peek(1) == quote && c.peek(2) == quote;
  c.skip(multi ? 3 : 1);
  while (!c.done()) {
    if (quote == '"' && c.peek() == '\\') {
      c.skip(2);
      continue;
    }
    if (!multi && c.peek() == '\n') return;
    if (c.peek() == quote && (!multi || (c.peek(1) == quote && c.peek(2) == quote))) {
      c.skip(multi ? 3 : 1);
      return;
    }
    c.step();
  }
}

bool ends_a_key(char ch) {
  return ch == '=' || ch == ',' || ch == '\n' || ch == '[' || ch == ']' || ch == '{' || ch == '}';
}

// The first place where the brackets and braces open around a key, plus the
// dots of that key, go past kMaxTomlDepth. Dots inside strings and comments do
// not count; a number's one dot is far under the limit.
std::optional<SourceLocation> first_too_deep(const std::string& text, const std::string& path) {
  TextCursor c{text};
  int open = 0, dots = 0;
  while (!c.done()) {
    const char ch = c.peek();
    if (ch == '"' || ch == '\'') {
      skip_string(c);
      continue;
    }
    if (ch == '#') {
      while (!c.done() && c.peek() != '\n') c.step();
      continue;
    }
    if (ch == '[' || ch == '{') ++open;
    if ((ch == ']' || ch == '}') && open > 0) --open;
    if (ch == '.') ++dots;
    if (ends_a_key(ch)) dots = 0;
    if (open + dots > kMaxTomlDepth) return SourceLocation{path, c.line, c.column, {}};
    c.step();
  }
  return std::nullopt;
}

}  // namespace

ParsedFile parse_toml_text(const std::string& text, const std::string& path) {
  ParsedFile out;
  if (std::optional<SourceLocation> deep = first_too_deep(text, path)) {
    out.diags.push_back(make_error(*deep, "",
                                   fmt::format("the key or value here is nested more than {} levels deep "
                                               "(the parts of a dotted key or [table] header, and the "
                                               "brackets and braces around it, together)",
                                               kMaxTomlDepth),
                                   "a recipe is sections of options a few levels deep: flatten the nesting"));
    return out;
  }
  try {
    toml::table t = toml::parse(text, path);
    out.root = convert(t, path, out.diags);
    out.root->loc = SourceLocation{path, 1, 1, {}};
  } catch (const toml::parse_error& e) {
    out.diags.push_back(make_error(where(e.source(), path), "",
                                   fmt::format("TOML syntax error: {}", e.description())));
  }
  return out;
}

}  // namespace runner
