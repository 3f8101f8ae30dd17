#include "recipe/emit.h"

#include <fmt/format.h>

#include <cmath>

namespace runner {
namespace {

using ojson = nlohmann::ordered_json;

// Shortest round-trip text of a double that still reads back as a float.
std::string number_text(double d, RecipeFormat f) {
  if (std::isnan(d)) return f == RecipeFormat::Yaml ? ".nan" : "nan";
  if (std::isinf(d)) return std::string(d < 0 ? "-" : "") + (f == RecipeFormat::Yaml ? ".inf" : "inf");
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

bool bare_key(const std::string& k) {
  if (k.empty()) return false;
  for (char c : k)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  return true;
}

std::string key_text(const std::string& k) { return bare_key(k) ? k : ojson(k).dump(); }

std::string scalar_text(const ojson& v, RecipeFormat f) {
  if (v.is_number_float()) return number_text(v.get<double>(), f);
  return v.dump();  // strings as JSON double-quoted strings: valid TOML and YAML
}

std::string value_text(const ojson& v, RecipeFormat f) {
  if (v.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + value_text(v[i], f);
    return s + "]";
  }
  if (v.is_object()) {
    if (v.empty()) return "{}";
    std::string s = "{ ";
    bool first = true;
    for (const auto& [k, item] : v.items()) {
      s += (first ? "" : ", ") + key_text(k) + (f == RecipeFormat::Toml ? " = " : ": ") +
           value_text(item, f);
      first = false;
    }
    return s + " }";
  }
  return scalar_text(v, f);
}

std::string emit_toml(const ojson& r) {
  std::string out;
  for (const auto& [k, v] : r.items())
    if (!v.is_object()) out += key_text(k) + " = " + value_text(v, RecipeFormat::Toml) + "\n";
  for (const auto& [section, body] : r.items()) {
    if (!body.is_object()) continue;
    out += "\n[" + key_text(section) + "]\n";
    for (const auto& [k, v] : body.items())
      out += key_text(k) + " = " + value_text(v, RecipeFormat::Toml) + "\n";
  }
  return out;
}

std::string emit_yaml(const ojson& r) {
  std::string out;
  for (const auto& [k, v] : r.items())
    if (!v.is_object()) out += key_text(k) + ": " + value_text(v, RecipeFormat::Yaml) + "\n";
  for (const auto& [section, body] : r.items()) {
    if (!body.is_object()) continue;
    out += "\n" + key_text(section) + ":\n";
    for (const auto& [k, v] : body.items())
      out += "  " + key_text(k) + ": " + value_text(v, RecipeFormat::Yaml) + "\n";
  }
  return out;
}

}  // namespace

std::string emit_value(const ojson& v, RecipeFormat format) { return value_text(v, format); }

std::string emit_recipe(const ojson& resolved, RecipeFormat format) {
  switch (format) {
    case RecipeFormat::Toml: return emit_toml(resolved);
    case RecipeFormat::Yaml: return emit_yaml(resolved);
    case RecipeFormat::Json: return resolved.dump(2) + "\n";
  }
  return {};
}

}  // namespace runner
