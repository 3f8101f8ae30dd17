// One option's value against its declaration: the type and range check that
// names what was expected and what was found, and the JSON the resolved recipe
// stores (lists and maps coerced element by element, maps sorted by key).
#pragma once

#include "recipe/sections.h"
#include "recipe/value.h"

#include <nlohmann/json.hpp>

#include <string>

namespace runner {

// "expected ..., found ..." for one option value; empty when it fits.
std::string option_mismatch(const OptionSpec& spec, const Value& v);

// The resolved recipe's JSON for a value option_mismatch accepted: a Number
// stays a double when written as an integer; a map's keys are sorted, as TOML
// and YAML order them differently.
nlohmann::ordered_json coerce_option(const OptionSpec& spec, const Value& v);

// How a value reads in an error: "a table", "a list [1, 2]", "3 (integer)".
std::string found_str(const Value& v);

}  // namespace runner
