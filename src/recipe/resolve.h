// Checking a recipe tree against the declared options and filling in defaults.
#pragma once

#include "recipe/sections.h"
#include "recipe/value.h"

#include <nlohmann/json.hpp>

namespace runner {

struct ResolveOptions {
  std::string recipe_path;  // names the default run.name
  bool check_paths = true;  // paths must exist (off for print-config of a recipe from elsewhere)
};

// Every section and top-level key, in declaration order, each option either as
// the recipe set it (type-checked, ranged, coerced) or as its default. Path
// options come out absolute. Every problem found is added to `diags`; the
// result is meaningful only when none of them is an error.
nlohmann::ordered_json resolve_tree(const Value& root, const Registry& reg,
                                    const ResolveOptions& options, Diagnostics& diags);

// The component a section selects (its selector key, else the section default);
// nullptr when unknown.
const Component* selected_component(const SectionSpec& section, const Value* section_value,
                                    const Registry& reg);

// Every option a section accepts with its selected component: the selector,
// the section's own options, then the component's.
std::vector<OptionSpec> section_options(const SectionSpec& section, const Component* component);

}  // namespace runner
