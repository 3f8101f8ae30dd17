// The `bert` model component: options, and building a model from them.
#pragma once

#include "model/bert.h"
#include "model/checkpoint.h"
#include "registry/option.h"

#include <memory>

namespace runner {

// Every option of model.type = "bert", declared once.
std::vector<OptionSpec> bert_options();

// The configuration the options describe: the pretrained folder's config.json
// or the preset, then the recipe's overrides, then the dataset's labels.
BertConfig bert_config_from_options(const nlohmann::json& options, const ModelContext& context);

struct LoadedBert {
  std::shared_ptr<BertForSequenceClassification> model;
  LoadReport report;  // empty source when nothing was loaded
};

// Builds the model. Fresh: Hugging Face's random init after LibTorch's
// constructors (so a seed gives the weights Python gives for that seed).
// Pretrained: the checkpoint's weights, and only the missing parameters
// initialised, from the generator state before construction, as
// from_pretrained does.
LoadedBert build_bert(const BertConfig& config, const std::string& weights);

}  // namespace runner
