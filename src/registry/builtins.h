// Registration entry points of the built-in components, one per module.
#pragma once

#include <any>

namespace runner {

class Registry;

void register_schedulers(Registry& r);  // optim/schedulers.cpp
void register_metrics(Registry& r);     // train/metrics.cpp
void register_loggers(Registry& r);     // run/loggers.cpp
void register_models(Registry& r);      // model/families.cpp
void register_tokenizers(Registry& r);  // tokenizer/tokenizer_loader.cpp
void register_datasets(Registry& r);    // data/dataset_registry.cpp
void register_optimizers(Registry& r);  // optim/optimizer_components.cpp

// Adds a built-in; a failure here is a programming error and throws std::logic_error.
struct ComponentSpec;
void add_builtin(Registry& r, ComponentSpec spec, std::any factory);

}  // namespace runner
