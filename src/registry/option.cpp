#include "registry/option.h"

#include <fmt/format.h>

namespace runner {

std::string option_type_name(OptionType t) {
  switch (t) {
    case OptionType::Bool: return "boolean";
    case OptionType::Int: return "integer";
    case OptionType::Number: return "number";
    case OptionType::String: return "string";
    case OptionType::Choice: return "string";
    case OptionType::DataPath: return "path (relative to the data root)";
    case OptionType::ModelPath: return "path (relative to the model root)";
    case OptionType::FilePath: return "path (relative to the recipe)";
    case OptionType::IntList: return "list of integers";
    case OptionType::NumberList: return "list of numbers";
    case OptionType::StringList: return "list of strings";
    case OptionType::StringMap: return "table of strings";
    case OptionType::IntMap: return "table of integers";
  }
  return "?";
}

bool is_path_type(OptionType t) {
  return t == OptionType::DataPath || t == OptionType::ModelPath || t == OptionType::FilePath;
}

static std::string format_bound(double v) {
  if (v == static_cast<long long>(v)) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

std::string OptionSpec::expectation() const {
  if (type == OptionType::Choice) {
    std::string s = "one of ";
    for (size_t i = 0; i < choices.size(); ++i)
      s += (i ? ", \"" : "\"") + choices[i] + "\"";
    return s;
  }
  std::string s = type == OptionType::Int ? "an integer" : "a " + option_type_name(type);
  if (min_items && max_items && *min_items == *max_items)
    s = fmt::format("a list of {} {}", *min_items, type == OptionType::IntList    ? "integers"
                                                   : type == OptionType::NumberList ? "numbers"
                                                                                    : "strings");
  if (minimum && maximum)
    s += fmt::format(" in {}{}, {}{}", exclusive_minimum ? "(" : "[", format_bound(*minimum),
                     format_bound(*maximum), exclusive_maximum ? ")" : "]");
  else if (minimum)
    s += fmt::format(" {} {}", exclusive_minimum ? ">" : ">=", format_bound(*minimum));
  else if (maximum)
    s += fmt::format(" {} {}", exclusive_maximum ? "<" : "<=", format_bound(*maximum));
  return s;
}

static void add_bounds(nlohmann::json& s, const OptionSpec& o) {
  if (o.minimum) s[o.exclusive_minimum ? "exclusiveMinimum" : "minimum"] = *o.minimum;
  if (o.maximum) s[o.exclusive_maximum ? "exclusiveMaximum" : "maximum"] = *o.maximum;
}

static void add_item_counts(nlohmann::json& s, const OptionSpec& o) {
  if (o.min_items) s["minItems"] = *o.min_items;
  if (o.max_items) s["maxItems"] = *o.max_items;
}

nlohmann::json OptionSpec::json_schema() const {
  nlohmann::json s = nlohmann::json::object();
  switch (type) {
    case OptionType::Bool: s["type"] = "boolean"; break;
    case OptionType::Int: s["type"] = "integer"; add_bounds(s, *this); break;
    case OptionType::Number: s["type"] = "number"; add_bounds(s, *this); break;
    case OptionType::Choice: s["type"] = "string"; s["enum"] = choices; break;
    case OptionType::String:
    case OptionType::DataPath:
    case OptionType::ModelPath:
    case OptionType::FilePath: s["type"] = "string"; break;
    case OptionType::IntList:
      s["type"] = "array";
      s["items"] = {{"type", "integer"}};
      if (minimum || maximum) add_bounds(s["items"], *this);
      add_item_counts(s, *this);
      break;
    case OptionType::NumberList:
      s["type"] = "array";
      s["items"] = {{"type", "number"}};
      if (minimum || maximum) add_bounds(s["items"], *this);
      add_item_counts(s, *this);
      break;
    case OptionType::StringList:
      s["type"] = "array";
      s["items"] = {{"type", "string"}};
      add_item_counts(s, *this);
      break;
    case OptionType::StringMap:
      s["type"] = "object";
      s["additionalProperties"] = {{"type", "string"}};
      break;
    case OptionType::IntMap:
      s["type"] = "object";
      s["additionalProperties"] = {{"type", "integer"}};
      break;
  }
  s["description"] = doc;
  if (!required) s["default"] = default_value;
  return s;
}

namespace opt {

static OptionSpec make(std::string name, OptionType type, nlohmann::json def, std::string doc) {
  OptionSpec o;
  o.name = std::move(name);
  o.type = type;
  o.default_value = std::move(def);
  o.doc = std::move(doc);
  return o;
}

OptionSpec flag(std::string n, bool d, std::string doc) { return make(n, OptionType::Bool, d, doc); }
OptionSpec integer(std::string n, long long d, std::string doc) { return make(n, OptionType::Int, d, doc); }
OptionSpec number(std::string n, double d, std::string doc) { return make(n, OptionType::Number, d, doc); }
OptionSpec text(std::string n, std::string d, std::string doc) { return make(n, OptionType::String, d, doc); }
OptionSpec choice(std::string n, std::vector<std::string> c, std::string d, std::string doc) {
  OptionSpec o = make(n, OptionType::Choice, d, doc);
  o.choices = std::move(c);
  return o;
}
OptionSpec data_path(std::string n, std::string d, std::string doc) { return make(n, OptionType::DataPath, d, doc); }
OptionSpec model_path(std::string n, std::string d, std::string doc) { return make(n, OptionType::ModelPath, d, doc); }
OptionSpec file_path(std::string n, std::string d, std::string doc) { return make(n, OptionType::FilePath, d, doc); }
OptionSpec integers(std::string n, std::vector<long long> d, std::string doc) { return make(n, OptionType::IntList, d, doc); }
OptionSpec numbers(std::string n, std::vector<double> d, std::string doc) { return make(n, OptionType::NumberList, d, doc); }
OptionSpec strings(std::string n, std::vector<std::string> d, std::string doc) { return make(n, OptionType::StringList, d, doc); }
OptionSpec string_map(std::string n, std::string doc) { return make(n, OptionType::StringMap, nlohmann::json::object(), doc); }
OptionSpec int_map(std::string n, std::string doc) { return make(n, OptionType::IntMap, nlohmann::json::object(), doc); }
OptionSpec required(OptionSpec spec) {
  spec.required = true;
  spec.default_value = nullptr;
  return spec;
}

}  // namespace opt

const OptionSpec* find_option(const std::vector<OptionSpec>& specs, const std::string& name) {
  for (const auto& s : specs)
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace runner
