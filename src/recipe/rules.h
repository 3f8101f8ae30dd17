// Cross-field rules: what no single option's declaration can say.
#pragma once

#include "recipe/value.h"
#include "registry/registry.h"

#include <nlohmann/json.hpp>

#include <string>

namespace runner {

// What this build, machine and environment can do; the CLI fills it from LibTorch
// and the environment.
struct Capabilities {
  bool cuda_build = false;      // LibTorch was built with CUDA
  bool cuda_available = false;  // and a GPU is usable now
  bool native_bf16 = false;     // the CPU has AVX512-BF16 or AMX
  // Why the mlflow logger could not log from here (no HTTP MLFLOW_TRACKING_URI), and
  // the fix; empty when it can.
  std::string mlflow_problem, mlflow_fix;
};

// Why `name` cannot be one folder name under an output folder ("contains \"/\"",
// "is \"..\"", a control character, past 200 bytes), or "" when it can: run.name
// and a sweep's name.
std::string folder_name_problem(const std::string& name);

// `tree` is the recipe as written (for locations and for what was set
// explicitly), `resolved` the same with defaults.
void check_recipe_rules(const nlohmann::ordered_json& resolved, const Value& tree,
                        const Capabilities& caps, const Registry& reg, Diagnostics& diags);

}  // namespace runner
