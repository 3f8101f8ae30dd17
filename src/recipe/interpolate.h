#pragma once

#include "recipe/value.h"

namespace runner {

// Replaces ${VAR} and ${VAR:-default} in every string of the tree with the
// environment's value; "$$" stands for a literal "$". An unset variable without
// a default is an error at that string's location.
void interpolate_env(Value& root, const std::string& key_path, Diagnostics& diags);

// One string; returns false (and fills `error`) on an unset variable or bad syntax.
bool interpolate_string(const std::string& in, std::string& out, std::string& error);

}  // namespace runner
