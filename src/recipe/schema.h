// The recipe JSON Schema (draft-07), generated from the option declarations.
// schemas/recipe.schema.json is this output for the built-in components.
#pragma once

#include "registry/registry.h"

#include <nlohmann/json.hpp>

namespace runner {

nlohmann::ordered_json recipe_schema(const Registry& reg);

// Validates a document against a schema with valijson. Returns (key path, message)
// for each violation; "" key path for the root.
std::vector<std::pair<std::string, std::string>> schema_violations(
    const nlohmann::ordered_json& schema, const nlohmann::json& document);

// The recipe schema of `reg`'s components, parsed for valijson once per set of
// registered components: a sweep validates every point against it, and building
// and parsing the schema cost ten times the validation.
std::vector<std::pair<std::string, std::string>> recipe_schema_violations(const Registry& reg,
                                                                          const nlohmann::json& document);

}  // namespace runner
