// The `roberta` model component: its options, the configuration they describe
// and its registered spec (torch-free; the family that builds
// RobertaForSequenceClassification is in model/family_builders.cpp).
#pragma once

#include "model/bert_config.h"
#include "model/model_context.h"
#include "registry/registry.h"

#include <vector>

namespace runner {

// Every option of model.type = "roberta", under RoBERTa's config.json names.
std::vector<OptionSpec> roberta_options();

// The pretrained folder's config.json or the preset, then the recipe's
// overrides, then the dataset's labels (context.num_labels > 0).
BertConfig roberta_config_from_options(const nlohmann::json& options, const ModelContext& context);

ComponentSpec roberta_spec();
// model.type = "xlm-roberta": the same family, for config.json model_type "xlm-roberta".
ComponentSpec xlm_roberta_spec();

}  // namespace runner
