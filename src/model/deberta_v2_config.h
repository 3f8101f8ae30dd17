// The DeBERTa-v2 architecture settings (DeBERTa-v3 is this architecture with
// its own vocabulary and settings), read from a Hugging Face config.json or
// taken from a preset. The encoder's plain sizes use BERT's names and struct;
// what is DeBERTa's own is the disentangled relative attention. Torch-free.
#pragma once

#include "model/bert_config.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace runner {

struct DebertaV2Config {
  BertConfig encoder;  // sizes, dropout, LayerNorm epsilon, labels (type_vocab_size may be 0)
  bool relative_attention = false;
  long long max_relative_positions = -1;  // < 1: max_position_embeddings
  long long position_buckets = -1;        // > 0: log buckets, and the table has 2 * buckets rows
  bool share_att_key = false;             // positions projected by query_proj / key_proj themselves
  bool c2p = false, p2c = false;          // pos_att_type
  bool norm_rel_ebd = false;              // "layer_norm": the relative table goes through a LayerNorm
  bool position_biased_input = true;      // absolute position embeddings added to the input
  long long pooler_hidden_size = 0;       // 0: hidden_size
  double pooler_dropout = 0;
  std::string pooler_hidden_act = "gelu";
  std::optional<double> cls_dropout;      // unset: hidden_dropout_prob

  long long relative_span() const {  // rows per direction of the relative table
    if (position_buckets > 0) return position_buckets;
    return max_relative_positions < 1 ? encoder.max_position_embeddings : max_relative_positions;
  }
  long long max_relative() const {
    return max_relative_positions < 1 ? encoder.max_position_embeddings : max_relative_positions;
  }
  long long pooler_size() const { return pooler_hidden_size > 0 ? pooler_hidden_size : encoder.hidden_size; }
  double classifier_dropout() const { return cls_dropout.value_or(encoder.hidden_dropout_prob); }
};

// Names accepted by deberta_v2_preset(): deberta-v3-xsmall, deberta-v3-small, deberta-v3-base, deberta-v3-large.
const std::vector<std::string>& deberta_v2_preset_names();
// Throws std::invalid_argument for an unknown name.
DebertaV2Config deberta_v2_preset(const std::string& name);

// Parses a Hugging Face config.json of model_type "deberta-v2"; a missing key
// takes transformers' DebertaV2Config default. `where` names the file in errors;
// settings the runner does not build (a convolution layer, p2p attention) are
// refused by name.
DebertaV2Config deberta_v2_config_from_json(const nlohmann::json& j, const std::string& where);
// The config.json a Hugging Face DebertaV2ForSequenceClassification loads.
nlohmann::json deberta_v2_config_to_json(const DebertaV2Config& c);
void validate_deberta_v2_config(const DebertaV2Config& c, const std::string& where);

struct ParameterCount;  // model/model_budget.h
// The parameters of DebertaV2ForSequenceClassification at c's sizes.
ParameterCount deberta_parameters(const DebertaV2Config& c);

}  // namespace runner
