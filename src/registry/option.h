// One declaration per option: name, type, default, range or choices, one-line doc.
// The JSON Schema, the defaults, validation, `--set` typing and `runner describe`
// are all derived from these declarations.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace runner {

enum class OptionType {
  Bool,
  Int,
  Number,
  String,
  Choice,      // one string out of `choices`
  DataPath,    // relative paths resolve against the data root (RUNNER_DATA)
  ModelPath,   // relative paths resolve against the model root (RUNNER_MODELS)
  FilePath,    // relative paths resolve against the recipe's folder
  IntList,
  NumberList,
  StringList,
  StringMap,   // a table of string -> string (e.g. column mappings)
  IntMap,      // a table of string -> integer (e.g. label name -> id)
};

std::string option_type_name(OptionType t);  // "number", "list of strings", ...
bool is_path_type(OptionType t);

struct OptionSpec {
  std::string name;
  OptionType type = OptionType::String;
  nlohmann::json default_value;  // null only when `required`
  bool required = false;
  // An empty path means "not set": it is neither resolved nor checked for existence.
  bool must_exist = true;
  std::optional<double> minimum, maximum;
  bool exclusive_minimum = false, exclusive_maximum = false;
  // List options: how many elements the list must have (e.g. betas: exactly 2).
  std::optional<long long> min_items, max_items;
  std::vector<std::string> choices;
  std::string doc;
  // For an option whose sensible default depends on its section's other options
  // (train.greater_is_better on train.metric_for_best): the value a section that
  // leaves it out gets, given that section with every other option filled in.
  // Unset: `default_value`, whatever the section holds.
  std::function<nlohmann::json(const nlohmann::json& section)> derived_default;

  // Fluent range setters.
  OptionSpec& at_least(double v) { minimum = v; exclusive_minimum = false; return *this; }
  OptionSpec& above(double v) { minimum = v; exclusive_minimum = true; return *this; }
  OptionSpec& at_most(double v) { maximum = v; exclusive_maximum = false; return *this; }
  OptionSpec& below(double v) { maximum = v; exclusive_maximum = true; return *this; }
  OptionSpec& may_be_missing() { must_exist = false; return *this; }
  OptionSpec& items(long long n) { min_items = max_items = n; return *this; }
  OptionSpec& default_from(std::function<nlohmann::json(const nlohmann::json&)> f) {
    derived_default = std::move(f);
    return *this;
  }

  // "a number > 0", "one of \"a\", \"b\"", "an integer in [1, 512]" ...
  std::string expectation() const;
  nlohmann::json json_schema() const;
};

// Builders: every option is declared with one of these.
namespace opt {
OptionSpec flag(std::string name, bool def, std::string doc);
OptionSpec integer(std::string name, long long def, std::string doc);
OptionSpec number(std::string name, double def, std::string doc);
OptionSpec text(std::string name, std::string def, std::string doc);
OptionSpec choice(std::string name, std::vector<std::string> choices, std::string def,
                  std::string doc);
OptionSpec data_path(std::string name, std::string def, std::string doc);
OptionSpec model_path(std::string name, std::string def, std::string doc);
OptionSpec file_path(std::string name, std::string def, std::string doc);
OptionSpec integers(std::string name, std::vector<long long> def, std::string doc);
OptionSpec numbers(std::string name, std::vector<double> def, std::string doc);
OptionSpec strings(std::string name, std::vector<std::string> def, std::string doc);
OptionSpec string_map(std::string name, std::string doc);
OptionSpec int_map(std::string name, std::string doc);
// A required option has no default: the recipe must set it.
OptionSpec required(OptionSpec spec);
}  // namespace opt

const OptionSpec* find_option(const std::vector<OptionSpec>& specs, const std::string& name);

}  // namespace runner
