// The ELECTRA (discriminator) architecture settings, read from a Hugging Face
// config.json or taken from a preset. ElectraConfig is BertConfig plus
// embedding_size: its config.json uses BERT's names for every other setting,
// and its encoder is BERT's. Torch-free.
#pragma once

#include "model/bert_config.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

struct ElectraConfig {
  long long embedding_size = 128;  // projected to encoder.hidden_size when they differ
  BertConfig encoder;              // every other setting, under BERT's names

  bool projects_embeddings() const { return embedding_size != encoder.hidden_size; }
};

// Names accepted by electra_preset(): electra-small, electra-base (discriminators).
const std::vector<std::string>& electra_preset_names();
// Throws std::invalid_argument for an unknown name.
ElectraConfig electra_preset(const std::string& name);

// Parses a Hugging Face ELECTRA config.json object; a missing key takes
// transformers' ElectraConfig default (the small discriminator). `where` names it in errors.
ElectraConfig electra_config_from_json(const nlohmann::json& j, const std::string& where);
// The config.json a Hugging Face ElectraForSequenceClassification loads.
nlohmann::json electra_config_to_json(const ElectraConfig& c);
// Positive sizes, heads dividing hidden_size, a known activation; InputError naming `where`.
void validate_electra_config(const ElectraConfig& c, const std::string& where);

}  // namespace runner
