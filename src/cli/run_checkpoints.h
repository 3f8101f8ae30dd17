// A run directory's weights as `export` and `evaluate` choose them: its
// checkpoints by name (step-00000042 or 42, best, final, or the newest that
// verifies), each checked against its sha256 manifest, and the plugins and
// dataset its recipe needs.
#pragma once

#include "run/run_dir.h"

#include <nlohmann/json.hpp>

#include <string>

namespace runner {

// The run directory `dir` (env.json and recipe.resolved.json present), or an
// InputError saying what a run directory is.
RunPaths open_run_dir(const std::string& dir);

// The model.safetensors of checkpoint `name`: a verified step checkpoint, "best",
// "final", or empty for the newest checkpoint that verifies. An InputError lists
// the run's checkpoints when `name` names none.
std::string chosen_weights(const RunPaths& run, const std::string& name);
// RUN/final/model.safetensors, once final/ matches its manifest.json (exit 2
// naming the file that changed); a final/ without a manifest is taken as it is.
std::string verified_final_weights(const RunPaths& run);
// What the run considers its result, as the Trainer's saved model: `name` when
// given (chosen_weights), else final/ (the best weights with load_best_at_end),
// else the newest checkpoint that verifies, saying so when final/ lacks its weights.
std::string result_weights(const RunPaths& run, const std::string& name);

// Loads the plugins the run was trained with (its recipe's "plugins").
void load_run_plugins(const RunPaths& run, const nlohmann::json& recipe);

// An InputError when the recipe's data.dataset is not registered (a plugin's
// dataset whose plugin is gone); `verb` says what the user tried ("export").
void require_known_dataset(const RunPaths& run, const nlohmann::json& recipe, const std::string& verb);

}  // namespace runner
