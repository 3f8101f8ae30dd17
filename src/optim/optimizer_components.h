// The built-in optimizers as components: adamw, adam and sgd. Their specs are
// torch-free (the front runner validates [optimizer]); what builds each one is
// LibTorch's half, kept apart as model/families.h keeps the model families'.
#pragma once

#include <any>

namespace runner {

// One OptimizerFactory (optim/optimizer.h) per optimizer of register_optimizers'
// list. runner_torch fills them (optim/optimizers.cpp); the front links src/front/
// in its place, where they are empty: it validates optimizers, never builds one.
struct OptimizerBuilders {
  std::any adamw, adam, sgd;
};
const OptimizerBuilders& optimizer_builders();

}  // namespace runner
