#include "recipe/option_value.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

namespace runner {
namespace {

bool in_range(const OptionSpec& s, double x) {
  if (s.minimum && (s.exclusive_minimum ? x <= *s.minimum : x < *s.minimum)) return false;
  if (s.maximum && (s.exclusive_maximum ? x >= *s.maximum : x > *s.maximum)) return false;
  return true;
}

bool scalar_fits(OptionType t, const OptionSpec& s, const Value& v) {
  switch (t) {
    case OptionType::Bool: return v.type == Value::Type::Bool;
    case OptionType::Int: return v.type == Value::Type::Int && in_range(s, double(v.i));
    case OptionType::Number:
      if (v.type == Value::Type::Int) return in_range(s, double(v.i));
      // No option's range includes inf or nan: the arithmetic they feed would not either.
      return v.type == Value::Type::Float && std::isfinite(v.f) && in_range(s, v.f);
    default: return v.type == Value::Type::String;
  }
}

OptionType element_type(OptionType t) {
  switch (t) {
    case OptionType::IntList: return OptionType::Int;
    case OptionType::NumberList: return OptionType::Number;
    case OptionType::IntMap: return OptionType::Int;
    default: return OptionType::String;
  }
}

nlohmann::ordered_json scalar_json(OptionType t, const Value& v) {
  if (t == OptionType::Number) return v.type == Value::Type::Int ? double(v.i) : v.f;
  return nlohmann::ordered_json::parse(v.to_json().dump());
}

}  // namespace

nlohmann::ordered_json coerce_option(const OptionSpec& s, const Value& v) {
  switch (s.type) {
    case OptionType::IntList:
    case OptionType::NumberList:
    case OptionType::StringList: {
      nlohmann::ordered_json a = nlohmann::ordered_json::array();
      for (const auto& item : v.list) a.push_back(scalar_json(element_type(s.type), item));
      return a;
    }
    case OptionType::StringMap:
    case OptionType::IntMap: {
      std::map<std::string, const Value*> sorted;  // TOML and YAML order differ: sort
      for (const auto& [k, item] : v.table) sorted[k] = &item;
      nlohmann::ordered_json o = nlohmann::ordered_json::object();
      for (const auto& [k, item] : sorted) o[k] = scalar_json(element_type(s.type), *item);
      return o;
    }
    default: return scalar_json(s.type, v);
  }
}

std::string found_str(const Value& v) {
  if (v.type == Value::Type::Table) return "a table";
  if (v.type == Value::Type::List) return "a list " + v.short_str();
  return v.short_str() + " (" + v.type_name() + ")";
}

std::string option_mismatch(const OptionSpec& s, const Value& v) {
  std::string expected = "expected " + s.expectation() + ", found " + found_str(v);
  switch (s.type) {
    case OptionType::Choice: {
      if (v.type != Value::Type::String) return expected;
      for (const auto& c : s.choices)
        if (c == v.s) return {};
      return expected;
    }
    case OptionType::IntList:
    case OptionType::NumberList:
    case OptionType::StringList:
      if (v.type != Value::Type::List) return expected;
      if ((s.min_items && static_cast<long long>(v.list.size()) < *s.min_items) ||
          (s.max_items && static_cast<long long>(v.list.size()) > *s.max_items))
        return fmt::format("expected {}, found a list of {} element{} {}", s.expectation(), v.list.size(),
                           v.list.size() == 1 ? "" : "s", v.short_str());
      for (const auto& item : v.list)
        if (!scalar_fits(element_type(s.type), s, item))
          return "expected " + s.expectation() + ", found element " + found_str(item);
      return {};
    case OptionType::StringMap:
    case OptionType::IntMap:
      if (v.type != Value::Type::Table) return expected;
      for (const auto& [k, item] : v.table)
        if (!scalar_fits(element_type(s.type), s, item))
          return "expected " + s.expectation() + ", found " + found_str(item) + " at key \"" + k + "\"";
      return {};
    default: return scalar_fits(s.type, s, v) ? std::string() : expected;
  }
}

}  // namespace runner
