// The BERT architecture settings, read from and written to a Hugging Face
// config.json, or taken from a named preset. Torch-free.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace runner {

struct BertConfig {
  long long vocab_size = 30522;
  long long hidden_size = 768;
  long long num_hidden_layers = 12;
  long long num_attention_heads = 12;
  long long intermediate_size = 3072;
  std::string hidden_act = "gelu";  // "gelu" is the exact erf form
  long long max_position_embeddings = 512;
  long long type_vocab_size = 2;
  double layer_norm_eps = 1e-12;
  double hidden_dropout_prob = 0.1;
  double attention_probs_dropout_prob = 0.1;
  std::optional<double> classifier_dropout;  // unset: hidden_dropout_prob
  double initializer_range = 0.02;
  long long pad_token_id = 0;
  long long num_labels = 2;
  std::vector<std::string> id2label;  // empty: LABEL_0, LABEL_1, ...
  std::string problem_type;           // "", "regression", "single_label_classification"
  // Keys of the original config.json that this struct does not model; kept so
  // that a saved folder carries them on.
  nlohmann::json extra = nlohmann::json::object();

  long long head_dim() const { return hidden_size / num_attention_heads; }
  double effective_classifier_dropout() const {
    return classifier_dropout.value_or(hidden_dropout_prob);
  }
  std::string label_name(long long id) const;
};

// Names accepted by bert_preset(): bert-tiny, bert-mini, bert-small, bert-medium, bert-base.
const std::vector<std::string>& bert_preset_names();
// Throws std::invalid_argument for an unknown name.
BertConfig bert_preset(const std::string& name);

// Parses a Hugging Face BERT config.json object. `where` names the file in errors.
// Throws InputError for a missing or mistyped field or an unsupported setting.
BertConfig bert_config_from_json(const nlohmann::json& j, const std::string& where);
BertConfig read_bert_config(const std::string& config_json_path);

// The config.json a Hugging Face BertForSequenceClassification loads.
nlohmann::json bert_config_to_json(const BertConfig& c);

// Checks the numbers fit together (heads divide hidden, sizes positive ...);
// throws InputError naming `where`.
void validate_bert_config(const BertConfig& c, const std::string& where);
// The ranges of the encoder's number fields every BERT-like config shares
// (DeBERTa-v2's encoder too): eps above 0, dropouts in [0, 1), init std of 0 or
// more, the padding id a row of the vocabulary.
void require_bert_ranges(const BertConfig& c, const std::string& where);

}  // namespace runner
