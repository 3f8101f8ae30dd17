#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace runner {

enum class RecipeFormat { Toml, Yaml, Json };

// A resolved recipe written out in one format, keys in declaration order.
// Output is canonical: the same resolved recipe always prints the same bytes.
std::string emit_recipe(const nlohmann::ordered_json& resolved, RecipeFormat format);

// One value as a recipe of that format writes it after `key = ` ("3e-05", "\"fp16\"", "[0.9, 0.999]").
std::string emit_value(const nlohmann::ordered_json& value, RecipeFormat format);

}  // namespace runner
