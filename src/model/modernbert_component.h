// The `modernbert` model component: its options, the configuration they
// describe and its registered spec (torch-free; the family that builds
// ModernBertForSequenceClassification is in model/family_builders.cpp).
#pragma once

#include "model/model_context.h"
#include "model/modernbert_config.h"
#include "registry/registry.h"

#include <vector>

namespace runner {

// Every option of model.type = "modernbert", under ModernBERT's config.json names.
std::vector<OptionSpec> modernbert_options();

// The pretrained folder's config.json or the preset, then the recipe's
// overrides, then the dataset's labels (context.num_labels > 0).
ModernBertConfig modernbert_config_from_options(const nlohmann::json& options, const ModelContext& context);

ComponentSpec modernbert_spec();

}  // namespace runner
