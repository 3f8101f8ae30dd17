// The [model] options every family takes, applied by build_model
// (model/model_factory.h): how the forward runs (execution,
// gradient_checkpointing), not what the model is. Torch-free: the families'
// specs declare them.
#pragma once

#include "registry/option.h"

#include <vector>

namespace runner {

std::vector<OptionSpec> execution_options();

}  // namespace runner
