#pragma once

#include "recipe/value.h"
#include "registry/registry.h"

#include <string>
#include <vector>

namespace runner {

// Applies `--set KEY=VALUE` overrides in order. The value's text is typed by
// the option's declaration (numbers, booleans, lists as [a, b] or a,b, strings);
// an unknown key is an error with a suggestion. Each value remembers its flag.
void apply_overrides(Value& root, const std::vector<std::string>& sets, const Registry& reg,
                     Diagnostics& diags);

}  // namespace runner
