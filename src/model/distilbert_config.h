// The DistilBERT architecture settings under Hugging Face's own config.json
// names (dim, n_layers, n_heads, hidden_dim ...), read from a config.json or
// taken from a preset. Torch-free.
#pragma once

#include "model/hf_config_fields.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

struct DistilBertConfig {
  long long vocab_size = 30522;
  long long max_position_embeddings = 512;
  bool sinusoidal_pos_embds = false;  // a fixed (frozen) sinusoid table instead of learned positions
  long long n_layers = 6;
  long long n_heads = 12;
  long long dim = 768;
  long long hidden_dim = 3072;
  double dropout = 0.1;
  double attention_dropout = 0.1;
  std::string activation = "gelu";  // "gelu" is the exact erf form
  double initializer_range = 0.02;
  double qa_dropout = 0.1;           // unused by sequence classification; carried on
  double seq_classif_dropout = 0.2;
  long long pad_token_id = 0;
  LabelFields labels;
  nlohmann::json extra = nlohmann::json::object();  // unmodelled keys, carried on

  long long head_dim() const { return dim / n_heads; }
};

// LayerNorm epsilon: transformers hard-codes it for DistilBERT (no config key).
constexpr double kDistilBertLayerNormEps = 1e-12;

// Names accepted by distilbert_preset(): distilbert-base.
const std::vector<std::string>& distilbert_preset_names();
// Throws std::invalid_argument for an unknown name.
DistilBertConfig distilbert_preset(const std::string& name);

// Parses a Hugging Face DistilBERT config.json object; `where` names it in errors.
DistilBertConfig distilbert_config_from_json(const nlohmann::json& j, const std::string& where);
// The config.json a Hugging Face DistilBertForSequenceClassification loads.
nlohmann::json distilbert_config_to_json(const DistilBertConfig& c);
// Positive sizes, heads dividing dim, a known activation; InputError naming `where`.
void validate_distilbert_config(const DistilBertConfig& c, const std::string& where);

}  // namespace runner
