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

// Every KEY that --set takes, in the schema's order and each once: the top-level
// options but `extends`, then each section's options with those of every component
// its selector may pick (model.hidden_size for bert, model.dim for distilbert ...).
// A map option is named itself (its entries are KEY.NAME). Shell completion offers them.
std::vector<std::string> settable_keys(const Registry& reg);

}  // namespace runner
