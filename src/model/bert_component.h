// The `bert` model component: its options, the configuration they describe and
// its registered spec. Torch-free, so that the front runner validates [model];
// the family that builds BertForSequenceClassification is in model/family_builders.cpp.
#pragma once

#include "model/bert_config.h"
#include "model/model_context.h"
#include "registry/registry.h"

#include <vector>

namespace runner {

// Every option of model.type = "bert", declared once.
std::vector<OptionSpec> bert_options();

// The recipe's size/dropout overrides (0 / negative = keep) and the dataset's
// labels applied to `c`; ELECTRA, whose config uses BERT's names, shares them.
void apply_bert_options(const nlohmann::json& options, const ModelContext& context, BertConfig& c);

// The configuration the options describe: the pretrained folder's config.json
// or the preset, then the recipe's overrides, then the dataset's labels.
BertConfig bert_config_from_options(const nlohmann::json& options, const ModelContext& context);

// The component registered as model.type = "bert".
ComponentSpec bert_spec();

}  // namespace runner
