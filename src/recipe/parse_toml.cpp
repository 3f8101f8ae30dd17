#include "recipe/parse.h"

#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include <fmt/format.h>

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

}  // namespace

ParsedFile parse_toml_text(const std::string& text, const std::string& path) {
  ParsedFile out;
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
