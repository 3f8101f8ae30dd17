// The RoBERTa architecture settings, read from a Hugging Face config.json or
// taken from a preset. RoBERTa's config.json uses BERT's names, so its settings
// are a BertConfig with RoBERTa's defaults: positions counted from
// pad_token_id + 1, one token type, LayerNorm epsilon 1e-5. Torch-free.
#pragma once

#include "model/bert_config.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

// Names accepted by roberta_preset(): roberta-base, distilroberta-base, xlm-roberta-base.
const std::vector<std::string>& roberta_preset_names();
// Throws std::invalid_argument for an unknown name.
BertConfig roberta_preset(const std::string& name);

// Parses a Hugging Face RoBERTa config.json object ("roberta", or "xlm-roberta":
// the same network with another vocabulary); a missing key takes transformers'
// RobertaConfig default. `where` names the file in errors.
BertConfig roberta_config_from_json(const nlohmann::json& j, const std::string& where);
// The config.json a Hugging Face RobertaForSequenceClassification loads.
nlohmann::json roberta_config_to_json(const BertConfig& c);
// BERT's checks, and room in the position table for its offset past pad_token_id.
void validate_roberta_config(const BertConfig& c, const std::string& where);

}  // namespace runner
