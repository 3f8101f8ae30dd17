#include "recipe/value.h"

#include <fmt/format.h>

#include <cmath>

namespace runner {

Value Value::make_table(SourceLocation loc) {
  Value v;
  v.type = Type::Table;
  v.loc = std::move(loc);
  return v;
}

Value Value::make_string(std::string s, SourceLocation loc) {
  Value v;
  v.type = Type::String;
  v.s = std::move(s);
  v.loc = std::move(loc);
  return v;
}

const Value* Value::find(const std::string& key) const {
  for (const auto& [k, v] : table)
    if (k == key) return &v;
  return nullptr;
}

Value* Value::find(const std::string& key) {
  for (auto& [k, v] : table)
    if (k == key) return &v;
  return nullptr;
}

void Value::set(const std::string& key, Value v) {
  if (Value* existing = find(key))
    *existing = std::move(v);
  else
    table.emplace_back(key, std::move(v));
}

bool Value::erase(const std::string& key) {
  for (auto it = table.begin(); it != table.end(); ++it)
    if (it->first == key) {
      table.erase(it);
      return true;
    }
  return false;
}

std::string Value::type_name() const {
  switch (type) {
    case Type::Null: return "null";
    case Type::Bool: return "boolean";
    case Type::Int: return "integer";
    case Type::Float: return "number";
    case Type::String: return "string";
    case Type::List: return "list";
    case Type::Table: return "table";
  }
  return "?";
}

// JSON has no inf or nan (nlohmann writes null): name them as a user writes them.
static std::string number_text(double f, const std::string& source) {
  std::string name = std::isnan(f) ? "nan" : f > 0 ? "inf" : "-inf";
  if (!source.empty() && source != name) return source + " (= " + name + ")";
  return name;
}

static bool all_finite(const Value& v) {
  if (v.type == Value::Type::Float) return std::isfinite(v.f);
  for (const auto& item : v.list)
    if (!all_finite(item)) return false;
  for (const auto& [k, item] : v.table)
    if (!all_finite(item)) return false;
  return true;
}

std::string Value::short_str() const {
  std::string out;
  switch (type) {
    case Type::String: out = nlohmann::json(s).dump(); break;
    case Type::Table: out = "a table"; break;
    case Type::Float:
      if (!std::isfinite(f)) out = number_text(f, s);
      else out = s.empty() ? to_json().dump() : s;  // an integer past 64 bits, as written
      break;
    case Type::List: {
      if (all_finite(*this)) {
        out = to_json().dump();
        break;
      }
      out = "[";
      for (size_t k = 0; k < list.size() && out.size() <= 60; ++k) out += (k ? ", " : "") + list[k].short_str();
      out += "]";
      break;
    }
    default: out = to_json().dump(); break;
  }
  if (out.size() > 60) out = out.substr(0, 57) + "...";
  return out;
}

nlohmann::json Value::to_json() const {
  switch (type) {
    case Type::Null: return nullptr;
    case Type::Bool: return b;
    case Type::Int: return i;
    case Type::Float: return f;
    case Type::String: return s;
    case Type::List: {
      nlohmann::json a = nlohmann::json::array();
      for (const auto& v : list) a.push_back(v.to_json());
      return a;
    }
    case Type::Table: {
      nlohmann::json o = nlohmann::json::object();
      for (const auto& [k, v] : table) o[k] = v.to_json();
      return o;
    }
  }
  return nullptr;
}

const Value& deepest_along(const Value& root, const std::string& key_path) {
  const Value* v = &root;
  size_t start = 0;
  while (!key_path.empty()) {
    size_t dot = key_path.find('.', start);
    const Value* next = v->is_table() ? v->find(key_path.substr(start, dot - start)) : nullptr;
    if (!next) break;
    v = next;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return *v;
}

void merge_into(Value& base, const Value& over) {
  if (!base.is_table() || !over.is_table()) {
    base = over;
    return;
  }
  for (const auto& [k, v] : over.table) {
    Value* existing = base.find(k);
    if (existing && existing->is_table() && v.is_table())
      merge_into(*existing, v);
    else
      base.set(k, v);
  }
}

}  // namespace runner
