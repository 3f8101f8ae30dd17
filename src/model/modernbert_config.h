// The ModernBERT architecture settings (Warner et al. 2024), read from a Hugging
// Face config.json or taken from a preset. Torch-free.
#pragma once

#include "model/hf_config_fields.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

struct ModernBertConfig {
  long long vocab_size = 50368;
  long long hidden_size = 768;
  long long intermediate_size = 1152;  // each half of Wi: the GeGLU's input and gate
  long long num_hidden_layers = 22;
  long long num_attention_heads = 12;
  std::string hidden_activation = "gelu";
  long long max_position_embeddings = 8192;
  double initializer_range = 0.02;
  double initializer_cutoff_factor = 2.0;
  double norm_eps = 1e-5;
  bool norm_bias = false, attention_bias = false, mlp_bias = false, classifier_bias = false;
  double embedding_dropout = 0, attention_dropout = 0, mlp_dropout = 0, classifier_dropout = 0;
  long long local_attention = 128;  // the window a local layer sees: +- local_attention / 2
  std::vector<bool> global_layers;  // per layer: full attention (else local)
  double global_rope_theta = 160000, local_rope_theta = 10000;
  std::string classifier_pooling = "cls";  // or "mean" over the real tokens
  std::string classifier_activation = "gelu";
  long long pad_token_id = 50283;
  LabelFields labels;
  nlohmann::json extra = nlohmann::json::object();  // keys of config.json not modelled, carried on

  long long head_dim() const { return hidden_size / num_attention_heads; }
};

// Names accepted by modernbert_preset(): modernbert-base, modernbert-large.
const std::vector<std::string>& modernbert_preset_names();
// Throws std::invalid_argument for an unknown name.
ModernBertConfig modernbert_preset(const std::string& name);

// Parses a Hugging Face config.json of model_type "modernbert" (the layer pattern
// as layer_types or global_attn_every_n_layers, the RoPE bases as
// rope_parameters or global_/local_rope_theta). `where` names the file in errors.
ModernBertConfig modernbert_config_from_json(const nlohmann::json& j, const std::string& where);
nlohmann::json modernbert_config_to_json(const ModernBertConfig& c);
void validate_modernbert_config(const ModernBertConfig& c, const std::string& where);

struct ParameterCount;  // model/model_budget.h
// The parameters of ModernBertForSequenceClassification at c's sizes.
ParameterCount modernbert_parameters(const ModernBertConfig& c);
// Every size positive and the fp32 weights within this machine's memory,
// checked before anything with one entry per layer is built (a config.json
// with 10^15 layers is refused, not looped over).
void require_sizes_fit(const ModernBertConfig& c, const std::string& where);

}  // namespace runner
