// What a run needs from the build, the machine and the environment, checked
// before a run directory exists: a refusal then leaves nothing behind.
#pragma once

#include "recipe/recipe.h"
#include "run/session_settings.h"

namespace runner {

// Throws InputError naming the recipe key and the fix: a device this build or
// machine cannot give, fp16 without CUDA, the mlflow logger without a tracking
// server, an out-of-range RUNNER_HEARTBEAT_SECONDS.
void require_runnable(const Recipe& recipe, const SessionSettings& settings);

}  // namespace runner
