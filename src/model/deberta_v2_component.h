// The `deberta-v2` model component (DeBERTa-v2 and DeBERTa-v3 checkpoints): its
// options, the configuration they describe and its registered spec
// (torch-free; the family that builds DebertaV2ForSequenceClassification is in
// model/family_builders.cpp).
#pragma once

#include "model/deberta_v2_config.h"
#include "model/model_context.h"
#include "registry/registry.h"

#include <vector>

namespace runner {

// Every option of model.type = "deberta-v2": BERT's size overrides under the
// same config.json names, a pretrained folder and DeBERTa-v3's presets.
std::vector<OptionSpec> deberta_v2_options();

// The pretrained folder's config.json or the preset, then the recipe's
// overrides, then the dataset's labels (context.num_labels > 0).
DebertaV2Config deberta_v2_config_from_options(const nlohmann::json& options, const ModelContext& context);

ComponentSpec deberta_v2_spec();

}  // namespace runner
