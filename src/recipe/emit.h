#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace runner {

enum class RecipeFormat { Toml, Yaml, Json };

// A resolved recipe written out in one format, keys in declaration order.
// Output is canonical: the same resolved recipe always prints the same bytes.
std::string emit_recipe(const nlohmann::ordered_json& resolved, RecipeFormat format);

}  // namespace runner
