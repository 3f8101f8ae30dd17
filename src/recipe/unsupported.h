// What the runner does not do, said plainly where a user asks for it: the
// Trainer's and the Hub's keys, sections, values, commands and flags
// for features that are not built here, each with where to go instead. This
// table is the one place those names live (README, "What it does not do").
#pragma once

#include <optional>
#include <string>

namespace runner {

// The sentence for `name` (a key, section, value, command or flag as a user
// writes it: "push_to_hub", "wandb", "push",
// "--onnx"), or nullopt when it names no unsupported feature.
std::optional<std::string> unsupported_feature(const std::string& name);

}  // namespace runner
