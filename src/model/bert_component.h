// The `bert` model component: its options, and the family that builds
// BertForSequenceClassification from them or from a config.json.
#pragma once

#include "model/bert.h"
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

// The component registered as model.type = "bert", and its family.
ComponentSpec bert_spec();
ModelFamily bert_family();

}  // namespace runner
