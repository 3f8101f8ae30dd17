#include "model/distilbert_config.h"
#include "model/model_budget.h"

#include <fmt/format.h>

#include <stdexcept>

namespace runner {
namespace {

const std::vector<std::string>& distilbert_modelled_keys() {
  static const std::vector<std::string> keys = {
      "vocab_size", "max_position_embeddings", "sinusoidal_pos_embds", "n_layers", "n_heads",
      "dim", "hidden_dim", "dropout", "attention_dropout", "activation", "initializer_range",
      "qa_dropout", "seq_classif_dropout", "pad_token_id"};
  return keys;
}

}  // namespace

const std::vector<std::string>& distilbert_preset_names() {
  static const std::vector<std::string> names = {"distilbert-base"};
  return names;
}

DistilBertConfig distilbert_preset(const std::string& name) {
  // distilbert-base-uncased (Sanh et al. 2019): the struct's defaults.
  if (name == "distilbert-base") return DistilBertConfig{};
  throw std::invalid_argument("unknown DistilBERT preset '" + name + "'");
}

DistilBertConfig distilbert_config_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) config_error(where, "", "expected a JSON object (a Hugging Face config.json)");
  std::string model_type = string_field(j, "model_type", "distilbert", where);
  if (model_type != "distilbert")
    config_error(where, "model_type", fmt::format("expected \"distilbert\", found \"{}\"", model_type),
                 "model.type = \"distilbert\" reads DistilBERT checkpoints only");
  DistilBertConfig c;
  c.vocab_size = int_field(j, "vocab_size", c.vocab_size, where);
  c.max_position_embeddings = int_field(j, "max_position_embeddings", c.max_position_embeddings, where);
  c.sinusoidal_pos_embds = bool_field(j, "sinusoidal_pos_embds", c.sinusoidal_pos_embds, where);
  c.n_layers = int_field(j, "n_layers", c.n_layers, where);
  c.n_heads = int_field(j, "n_heads", c.n_heads, where);
  c.dim = int_field(j, "dim", c.dim, where);
  c.hidden_dim = int_field(j, "hidden_dim", c.hidden_dim, where);
  c.dropout = number_field(j, "dropout", c.dropout, where);
  c.attention_dropout = number_field(j, "attention_dropout", c.attention_dropout, where);
  c.activation = string_field(j, "activation", c.activation, where);
  c.initializer_range = number_field(j, "initializer_range", c.initializer_range, where);
  c.qa_dropout = number_field(j, "qa_dropout", c.qa_dropout, where);
  c.seq_classif_dropout = number_field(j, "seq_classif_dropout", c.seq_classif_dropout, where);
  c.pad_token_id = int_field(j, "pad_token_id", c.pad_token_id, where);
  c.labels = read_label_fields(j, where);
  c.extra = extra_fields(j, distilbert_modelled_keys());
  validate_distilbert_config(c, where);
  return c;
}

void validate_distilbert_config(const DistilBertConfig& c, const std::string& where) {
  require_positive(where, "vocab_size", c.vocab_size);
  require_positive(where, "max_position_embeddings", c.max_position_embeddings);
  require_positive(where, "n_layers", c.n_layers);
  require_positive(where, "n_heads", c.n_heads);
  require_positive(where, "dim", c.dim);
  require_positive(where, "hidden_dim", c.hidden_dim);
  if (c.dim % c.n_heads != 0)
    config_error(where, "n_heads",
                 fmt::format("dim {} is not a multiple of n_heads {}", c.dim, c.n_heads));
  if (c.pad_token_id < 0 || c.pad_token_id >= c.vocab_size)
    config_error(where, "pad_token_id",
                 fmt::format("expected an id in 0..{}, found {}", c.vocab_size - 1, c.pad_token_id));
  require_activation(where, "activation", c.activation);
  for (const auto& [key, p] : {std::pair<const char*, double>{"dropout", c.dropout},
                               {"attention_dropout", c.attention_dropout},
                               {"qa_dropout", c.qa_dropout},
                               {"seq_classif_dropout", c.seq_classif_dropout}})
    require_probability(where, key, p);
  require_non_negative_number(where, "initializer_range", c.initializer_range);
  validate_label_fields(c.labels, where);
  require_weights_fit(parameter_count(c), where);
}

nlohmann::json distilbert_config_to_json(const DistilBertConfig& c) {
  nlohmann::json j = c.extra;
  j["architectures"] = {"DistilBertForSequenceClassification"};
  j["model_type"] = "distilbert";
  j["vocab_size"] = c.vocab_size;
  j["max_position_embeddings"] = c.max_position_embeddings;
  j["sinusoidal_pos_embds"] = c.sinusoidal_pos_embds;
  j["n_layers"] = c.n_layers;
  j["n_heads"] = c.n_heads;
  j["dim"] = c.dim;
  j["hidden_dim"] = c.hidden_dim;
  j["dropout"] = c.dropout;
  j["attention_dropout"] = c.attention_dropout;
  j["activation"] = c.activation;
  j["initializer_range"] = c.initializer_range;
  j["qa_dropout"] = c.qa_dropout;
  j["seq_classif_dropout"] = c.seq_classif_dropout;
  j["pad_token_id"] = c.pad_token_id;
  j["torch_dtype"] = "float32";
  write_label_fields(c.labels, j);
  return j;
}

}  // namespace runner
