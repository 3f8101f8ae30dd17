#include "recipe/parse.h"
#include "util/numbers.h"

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <regex>
#include <set>

namespace runner {
namespace {

SourceLocation where(const YAML::Mark& m, const std::string& path) {
  if (m.is_null()) return SourceLocation{path, 0, 0, {}};
  return SourceLocation{path, m.line + 1, m.column + 1, {}};
}

// YAML 1.2 core schema resolution of plain scalars; quoted scalars stay strings.
Value plain_scalar(const std::string& s) {
  static const std::regex int_re(R"([-+]?[0-9]+)");
  static const std::regex float_re(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  Value v;
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return v;
  if (s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE") {
    v.type = Value::Type::Bool;
    v.b = s[0] == 't' || s[0] == 'T';
  } else if (std::regex_match(s, int_re)) {
    // Past 64 bits the integer is kept as the number it is (a float), so that the
    // option's check names the key and the value; strtod gives +-inf past a double.
    std::string why, digits = s[0] == '+' ? s.substr(1) : s;
    std::optional<long long> i = parse_integer(digits, why);
    v.type = i ? Value::Type::Int : Value::Type::Float;
    if (i) v.i = *i;
    else v.f = std::strtod(s.c_str(), nullptr);
  } else if (std::regex_match(s, float_re)) {
    v.type = Value::Type::Float;
    v.f = std::strtod(s.c_str(), nullptr);  // 1e999 -> inf, refused by the option's range
  } else if (s == ".inf" || s == "+.inf" || s == ".Inf" || s == ".INF") {
    v.type = Value::Type::Float;
    v.f = INFINITY;
  } else if (s == "-.inf" || s == "-.Inf" || s == "-.INF") {
    v.type = Value::Type::Float;
    v.f = -INFINITY;
  } else if (s == ".nan" || s == ".NaN" || s == ".NAN") {
    v.type = Value::Type::Float;
    v.f = NAN;
  } else {
    v.type = Value::Type::String;
    v.s = s;
  }
  return v;
}

Value convert(const YAML::Node& node, const std::string& path, Diagnostics& diags) {
  Value v;
  SourceLocation loc = where(node.Mark(), path);
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      v.type = Value::Type::Table;
      std::set<std::string> seen;
      for (const auto& kv : node) {
        std::string key = kv.first.Scalar();
        if (!seen.insert(key).second) {
          diags.push_back(make_error(where(kv.first.Mark(), path), key,
                                     "this key is defined twice in the same table",
                                     "keep one of the two definitions"));
          continue;
        }
        Value c = convert(kv.second, path, diags);
        if (c.is_table()) c.loc = where(kv.first.Mark(), path);
        v.table.emplace_back(key, std::move(c));
      }
      break;
    }
    case YAML::NodeType::Sequence:
      v.type = Value::Type::List;
      for (const auto& child : node) v.list.push_back(convert(child, path, diags));
      break;
    case YAML::NodeType::Scalar:
      if (node.Tag() == "!")
        v = Value::make_string(node.Scalar());
      else
        v = plain_scalar(node.Scalar());
      break;
    default: break;  // Null / Undefined
  }
  v.loc = loc;
  return v;
}

}  // namespace

ParsedFile parse_yaml_text(const std::string& text, const std::string& path) {
  ParsedFile out;
  try {
    YAML::Node doc = YAML::Load(text);
    if (doc.IsNull()) {
      out.root = Value::make_table(SourceLocation{path, 1, 1, {}});
    } else if (!doc.IsMap()) {
      out.diags.push_back(make_error(where(doc.Mark(), path), "",
                                     "a recipe must be a mapping of sections at the top level",
                                     "start the file with e.g. `run:` on its own line"));
    } else {
      out.root = convert(doc, path, out.diags);
      out.root->loc = SourceLocation{path, 1, 1, {}};
    }
  } catch (const YAML::Exception& e) {
    out.diags.push_back(
        make_error(where(e.mark, path), "", fmt::format("YAML syntax error: {}", e.msg)));
  }
  return out;
}

}  // namespace runner
