#include "model/bert_config.h"

#include "model/hf_config_fields.h"
#include "model/model_budget.h"

#include <fmt/format.h>

#include <map>
#include <stdexcept>

namespace runner {
namespace {

// The config.json keys BertConfig models, besides those every family shares.
const std::vector<std::string>& bert_modelled_keys() {
  static const std::vector<std::string> keys = {
      "vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
      "intermediate_size", "hidden_act", "max_position_embeddings", "type_vocab_size",
      "layer_norm_eps", "hidden_dropout_prob", "attention_probs_dropout_prob",
      "classifier_dropout", "initializer_range", "pad_token_id", "position_embedding_type"};
  return keys;
}

BertConfig bert_make_preset(long long layers, long long hidden, long long heads) {
  BertConfig c;
  c.num_hidden_layers = layers;
  c.hidden_size = hidden;
  c.num_attention_heads = heads;
  c.intermediate_size = 4 * hidden;
  return c;
}

}  // namespace

std::string BertConfig::label_name(long long id) const {
  if (id >= 0 && id < static_cast<long long>(id2label.size())) return id2label[id];
  return fmt::format("LABEL_{}", id);
}

const std::vector<std::string>& bert_preset_names() {
  static const std::vector<std::string> names = {"bert-tiny", "bert-mini", "bert-small",
                                                 "bert-medium", "bert-base"};
  return names;
}

BertConfig bert_preset(const std::string& name) {
  // Layers / hidden / heads of Google's BERT miniatures (Turc et al. 2019) and BERT-base.
  static const std::map<std::string, BertConfig> presets = {
      {"bert-tiny", bert_make_preset(2, 128, 2)},   {"bert-mini", bert_make_preset(4, 256, 4)},
      {"bert-small", bert_make_preset(4, 512, 8)},  {"bert-medium", bert_make_preset(8, 512, 8)},
      {"bert-base", bert_make_preset(12, 768, 12)},
  };
  auto it = presets.find(name);
  if (it == presets.end()) throw std::invalid_argument("unknown BERT preset '" + name + "'");
  return it->second;
}

BertConfig bert_config_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) config_error(where, "", "expected a JSON object (a Hugging Face config.json)");
  std::string model_type = string_field(j, "model_type", "bert", where);
  if (model_type != "bert")
    config_error(where, "model_type", fmt::format("expected \"bert\", found \"{}\"", model_type),
                 "only BERT checkpoints are supported by model.type = \"bert\"");
  std::string pos = string_field(j, "position_embedding_type", "absolute", where);
  if (pos != "absolute")
    config_error(where, "position_embedding_type",
                 fmt::format("expected \"absolute\", found \"{}\"", pos));
  BertConfig c;
  c.vocab_size = int_field(j, "vocab_size", c.vocab_size, where);
  c.hidden_size = int_field(j, "hidden_size", c.hidden_size, where);
  c.num_hidden_layers = int_field(j, "num_hidden_layers", c.num_hidden_layers, where);
  c.num_attention_heads = int_field(j, "num_attention_heads", c.num_attention_heads, where);
  c.intermediate_size = int_field(j, "intermediate_size", c.intermediate_size, where);
  c.hidden_act = string_field(j, "hidden_act", c.hidden_act, where);
  c.max_position_embeddings =
      int_field(j, "max_position_embeddings", c.max_position_embeddings, where);
  c.type_vocab_size = int_field(j, "type_vocab_size", c.type_vocab_size, where);
  c.layer_norm_eps = number_field(j, "layer_norm_eps", c.layer_norm_eps, where);
  c.hidden_dropout_prob = number_field(j, "hidden_dropout_prob", c.hidden_dropout_prob, where);
  c.attention_probs_dropout_prob =
      number_field(j, "attention_probs_dropout_prob", c.attention_probs_dropout_prob, where);
  if (j.contains("classifier_dropout") && !j.at("classifier_dropout").is_null())
    c.classifier_dropout = number_field(j, "classifier_dropout", 0.0, where);
  c.initializer_range = number_field(j, "initializer_range", c.initializer_range, where);
  c.pad_token_id = int_field(j, "pad_token_id", c.pad_token_id, where);
  LabelFields labels = read_label_fields(j, where);
  c.num_labels = labels.num_labels;
  c.id2label = labels.id2label;
  c.problem_type = labels.problem_type;
  c.extra = extra_fields(j, bert_modelled_keys());
  validate_bert_config(c, where);
  return c;
}

BertConfig read_bert_config(const std::string& path) {
  return bert_config_from_json(read_config_file(path), path);
}

void require_bert_ranges(const BertConfig& c, const std::string& where) {
  require_positive_number(where, "layer_norm_eps", c.layer_norm_eps);
  require_probability(where, "hidden_dropout_prob", c.hidden_dropout_prob);
  require_probability(where, "attention_probs_dropout_prob", c.attention_probs_dropout_prob);
  require_non_negative_number(where, "initializer_range", c.initializer_range);
  require_token_id(where, "pad_token_id", c.pad_token_id, c.vocab_size);
}

void validate_bert_config(const BertConfig& c, const std::string& where) {
  require_positive(where, "vocab_size", c.vocab_size);
  require_positive(where, "hidden_size", c.hidden_size);
  require_positive(where, "num_hidden_layers", c.num_hidden_layers);
  require_positive(where, "num_attention_heads", c.num_attention_heads);
  require_positive(where, "intermediate_size", c.intermediate_size);
  require_positive(where, "max_position_embeddings", c.max_position_embeddings);
  require_positive(where, "type_vocab_size", c.type_vocab_size);
  if (c.hidden_size % c.num_attention_heads != 0)
    config_error(where, "num_attention_heads",
                 fmt::format("hidden_size {} is not a multiple of num_attention_heads {}",
                             c.hidden_size, c.num_attention_heads));
  require_activation(where, "hidden_act", c.hidden_act);
  require_bert_ranges(c, where);
  if (c.classifier_dropout) require_probability(where, "classifier_dropout", *c.classifier_dropout);
  validate_label_fields({c.num_labels, c.id2label, c.problem_type}, where);
  require_weights_fit(parameter_count(c), where);
}

nlohmann::json bert_config_to_json(const BertConfig& c) {
  nlohmann::json j = c.extra;
  j["architectures"] = {"BertForSequenceClassification"};
  j["model_type"] = "bert";
  j["vocab_size"] = c.vocab_size;
  j["hidden_size"] = c.hidden_size;
  j["num_hidden_layers"] = c.num_hidden_layers;
  j["num_attention_heads"] = c.num_attention_heads;
  j["intermediate_size"] = c.intermediate_size;
  j["hidden_act"] = c.hidden_act;
  j["max_position_embeddings"] = c.max_position_embeddings;
  j["type_vocab_size"] = c.type_vocab_size;
  j["layer_norm_eps"] = c.layer_norm_eps;
  j["hidden_dropout_prob"] = c.hidden_dropout_prob;
  j["attention_probs_dropout_prob"] = c.attention_probs_dropout_prob;
  j["classifier_dropout"] =
      c.classifier_dropout ? nlohmann::json(*c.classifier_dropout) : nlohmann::json();
  j["initializer_range"] = c.initializer_range;
  j["pad_token_id"] = c.pad_token_id;
  j["position_embedding_type"] = "absolute";
  j["torch_dtype"] = "float32";
  write_label_fields({c.num_labels, c.id2label, c.problem_type}, j);
  return j;
}

}  // namespace runner
