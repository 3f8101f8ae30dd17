// The `distilbert` model component: its options, the configuration they describe
// and its registered spec (torch-free; the family is in model/family_builders.cpp).
#pragma once

#include "model/distilbert_config.h"
#include "model/model_context.h"
#include "registry/registry.h"

#include <vector>

namespace runner {

// Every option of model.type = "distilbert", under DistilBERT's config.json names.
std::vector<OptionSpec> distilbert_options();

// The pretrained folder's config.json or the preset, then the recipe's
// overrides, then the dataset's labels (context.num_labels > 0).
DistilBertConfig distilbert_config_from_options(const nlohmann::json& options, const ModelContext& context);

ComponentSpec distilbert_spec();

}  // namespace runner
