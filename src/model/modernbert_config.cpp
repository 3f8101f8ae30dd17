#include "model/modernbert_config.h"
#include "model/model_budget.h"

#include <fmt/format.h>

#include <stdexcept>

namespace runner {
namespace {

const std::vector<std::string>& modelled_keys() {
  static const std::vector<std::string> keys = {
      "vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
      "hidden_activation", "max_position_embeddings", "initializer_range", "initializer_cutoff_factor",
      "norm_eps", "norm_bias", "attention_bias", "mlp_bias", "classifier_bias", "embedding_dropout",
      "attention_dropout", "mlp_dropout", "classifier_dropout", "local_attention", "layer_types",
      "global_attn_every_n_layers", "rope_parameters", "global_rope_theta", "local_rope_theta",
      "classifier_pooling", "classifier_activation", "pad_token_id"};
  return keys;
}

std::vector<bool> every_nth_global(long long layers, long long n) {
  std::vector<bool> out;
  for (long long i = 0; i < layers; ++i) out.push_back(n <= 0 || i % n == 0);
  return out;
}

void read_layer_pattern(const nlohmann::json& j, ModernBertConfig& c, const std::string& where) {
  if (!j.contains("layer_types") || j.at("layer_types").is_null()) {
    c.global_layers = every_nth_global(c.num_hidden_layers, int_field(j, "global_attn_every_n_layers", 3, where));
    return;
  }
  c.global_layers.clear();
  for (const auto& t : j.at("layer_types")) {
    const std::string type = t.is_string() ? t.get<std::string>() : t.dump();
    if (type != "full_attention" && type != "sliding_attention")
      config_error(where, "layer_types", fmt::format("\"{}\" is neither \"full_attention\" nor \"sliding_attention\"", type));
    c.global_layers.push_back(type == "full_attention");
  }
}

// rope_parameters is {"full_attention": {...}, "sliding_attention": {...}}, each
// with a rope_type (only "default" is built) and a rope_theta; absent, the flat
// global_rope_theta / local_rope_theta keys of older configs apply.
double rope_theta(const nlohmann::json& j, const char* type, const char* flat_key, double def, const std::string& where) {
  if (!j.contains("rope_parameters") || j.at("rope_parameters").is_null()) return number_field(j, flat_key, def, where);
  const nlohmann::json& rope = j.at("rope_parameters");
  const std::string key = std::string("rope_parameters.") + type;
  if (!rope.is_object())
    config_error(where, "rope_parameters", "expected an object of full_attention and sliding_attention settings");
  if (!rope.contains(type) || rope.at(type).is_null()) return number_field(j, flat_key, def, where);
  const nlohmann::json& p = rope.at(type);
  if (!p.is_object()) config_error(where, key, "expected an object with rope_type and rope_theta");
  if (p.contains("rope_type") && !p.at("rope_type").is_string() && !p.at("rope_type").is_null())
    config_error(where, key + ".rope_type", fmt::format("expected a string such as \"default\", found {}",
                                                        p.at("rope_type").dump()));
  const std::string kind = p.value("rope_type", std::string("default"));
  if (kind != "default")
    config_error(where, key + ".rope_type", fmt::format("rope_type \"{}\" is not built here (\"default\" is)", kind));
  return number_field(p, "rope_theta", def, where);
}

}  // namespace

const std::vector<std::string>& modernbert_preset_names() {
  static const std::vector<std::string> names = {"modernbert-base", "modernbert-large"};
  return names;
}

ModernBertConfig modernbert_preset(const std::string& name) {
  // answerdotai/ModernBERT-base (22 x 768, GeGLU 1152) and -large (28 x 1024, GeGLU 2624).
  ModernBertConfig c;
  if (name == "modernbert-large") {
    c.hidden_size = 1024;
    c.intermediate_size = 2624;
    c.num_hidden_layers = 28;
    c.num_attention_heads = 16;
  } else if (name != "modernbert-base") {
    throw std::invalid_argument("unknown ModernBERT preset '" + name + "'");
  }
  c.global_layers = every_nth_global(c.num_hidden_layers, 3);
  return c;
}

ModernBertConfig modernbert_config_from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) config_error(where, "", "expected a JSON object (a Hugging Face config.json)");
  const std::string model_type = string_field(j, "model_type", "modernbert", where);
  if (model_type != "modernbert")
    config_error(where, "model_type", fmt::format("expected \"modernbert\", found \"{}\"", model_type),
                 "model.type = \"modernbert\" reads ModernBERT checkpoints only");
  ModernBertConfig c;
  c.vocab_size = int_field(j, "vocab_size", c.vocab_size, where);
  c.hidden_size = int_field(j, "hidden_size", c.hidden_size, where);
  c.intermediate_size = int_field(j, "intermediate_size", c.intermediate_size, where);
  c.num_hidden_layers = int_field(j, "num_hidden_layers", c.num_hidden_layers, where);
  c.num_attention_heads = int_field(j, "num_attention_heads", c.num_attention_heads, where);
  c.hidden_activation = string_field(j, "hidden_activation", c.hidden_activation, where);
  c.max_position_embeddings = int_field(j, "max_position_embeddings", c.max_position_embeddings, where);
  c.initializer_range = number_field(j, "initializer_range", c.initializer_range, where);
  c.initializer_cutoff_factor = number_field(j, "initializer_cutoff_factor", c.initializer_cutoff_factor, where);
  c.norm_eps = number_field(j, "norm_eps", c.norm_eps, where);
  c.norm_bias = bool_field(j, "norm_bias", c.norm_bias, where);
  c.attention_bias = bool_field(j, "attention_bias", c.attention_bias, where);
  c.mlp_bias = bool_field(j, "mlp_bias", c.mlp_bias, where);
  c.classifier_bias = bool_field(j, "classifier_bias", c.classifier_bias, where);
  c.embedding_dropout = number_field(j, "embedding_dropout", 0, where);
  c.attention_dropout = number_field(j, "attention_dropout", 0, where);
  c.mlp_dropout = number_field(j, "mlp_dropout", 0, where);
  c.classifier_dropout = number_field(j, "classifier_dropout", 0, where);
  c.local_attention = int_field(j, "local_attention", c.local_attention, where);
  c.labels = read_label_fields(j, where);
  require_sizes_fit(c, where);  // before a layer pattern of num_hidden_layers entries is built
  read_layer_pattern(j, c, where);
  c.global_rope_theta = rope_theta(j, "full_attention", "global_rope_theta", c.global_rope_theta, where);
  c.local_rope_theta = rope_theta(j, "sliding_attention", "local_rope_theta", c.local_rope_theta, where);
  c.classifier_pooling = string_field(j, "classifier_pooling", c.classifier_pooling, where);
  c.classifier_activation = string_field(j, "classifier_activation", c.classifier_activation, where);
  c.pad_token_id = int_field(j, "pad_token_id", c.pad_token_id, where);
  c.extra = extra_fields(j, modelled_keys());
  validate_modernbert_config(c, where);
  return c;
}

ParameterCount modernbert_parameters(const ModernBertConfig& c) {
  const double h = double(c.hidden_size), i = double(c.intermediate_size), labels = double(c.labels.num_labels);
  ParameterCount p;
  p.embeddings = double(c.vocab_size) * h + h;
  p.layers = double(c.num_hidden_layers) * (4 * h * h + 3 * h * i + 2 * h);  // Wqkv, Wo, Wi (2i), Wo (i), norms
  p.head = h + (h * h + h) + (h * labels + labels);  // final norm, dense + norm, classifier
  return p;
}

void require_sizes_fit(const ModernBertConfig& c, const std::string& where) {
  for (const auto& [key, value] : {std::pair<const char*, long long>{"vocab_size", c.vocab_size},
                                   {"hidden_size", c.hidden_size},
                                   {"intermediate_size", c.intermediate_size},
                                   {"num_hidden_layers", c.num_hidden_layers},
                                   {"num_attention_heads", c.num_attention_heads},
                                   {"max_position_embeddings", c.max_position_embeddings},
                                   {"local_attention", c.local_attention}})
    require_positive(where, key, value);
  require_weights_fit(modernbert_parameters(c), where);
}

void validate_modernbert_config(const ModernBertConfig& c, const std::string& where) {
  require_sizes_fit(c, where);
  if (c.hidden_size % c.num_attention_heads != 0 || c.head_dim() % 2 != 0)
    config_error(where, "num_attention_heads",
                 fmt::format("hidden_size {} over {} heads is not an even head width (RoPE rotates pairs)",
                             c.hidden_size, c.num_attention_heads));
  if (static_cast<long long>(c.global_layers.size()) != c.num_hidden_layers)
    config_error(where, "layer_types", fmt::format("{} layer types for {} layers", c.global_layers.size(),
                                                   c.num_hidden_layers));
  if (c.classifier_pooling != "cls" && c.classifier_pooling != "mean")
    config_error(where, "classifier_pooling", fmt::format("expected \"cls\" or \"mean\", found \"{}\"", c.classifier_pooling));
  require_activation(where, "hidden_activation", c.hidden_activation);
  require_activation(where, "classifier_activation", c.classifier_activation);
  for (const auto& [key, p] : {std::pair<const char*, double>{"embedding_dropout", c.embedding_dropout},
                               {"attention_dropout", c.attention_dropout},
                               {"mlp_dropout", c.mlp_dropout},
                               {"classifier_dropout", c.classifier_dropout}})
    require_probability(where, key, p);
  require_non_negative_number(where, "initializer_range", c.initializer_range);
  require_positive_number(where, "initializer_cutoff_factor", c.initializer_cutoff_factor);
  require_positive_number(where, "norm_eps", c.norm_eps);
  require_positive_number(where, "global_rope_theta", c.global_rope_theta);
  require_positive_number(where, "local_rope_theta", c.local_rope_theta);
  require_token_id(where, "pad_token_id", c.pad_token_id, c.vocab_size);
  validate_label_fields(c.labels, where);
}

nlohmann::json modernbert_config_to_json(const ModernBertConfig& c) {
  nlohmann::json j = c.extra;
  j["architectures"] = {"ModernBertForSequenceClassification"};
  j["model_type"] = "modernbert";
  for (const auto& [key, value] : std::initializer_list<std::pair<const char*, nlohmann::json>>{
           {"vocab_size", c.vocab_size}, {"hidden_size", c.hidden_size}, {"intermediate_size", c.intermediate_size},
           {"num_hidden_layers", c.num_hidden_layers}, {"num_attention_heads", c.num_attention_heads},
           {"hidden_activation", c.hidden_activation}, {"max_position_embeddings", c.max_position_embeddings},
           {"initializer_range", c.initializer_range}, {"initializer_cutoff_factor", c.initializer_cutoff_factor},
           {"norm_eps", c.norm_eps}, {"norm_bias", c.norm_bias}, {"attention_bias", c.attention_bias},
           {"mlp_bias", c.mlp_bias}, {"classifier_bias", c.classifier_bias}, {"embedding_dropout", c.embedding_dropout},
           {"attention_dropout", c.attention_dropout}, {"mlp_dropout", c.mlp_dropout},
           {"classifier_dropout", c.classifier_dropout}, {"local_attention", c.local_attention},
           {"classifier_pooling", c.classifier_pooling}, {"classifier_activation", c.classifier_activation},
           {"pad_token_id", c.pad_token_id}})
    j[key] = value;
  nlohmann::json types = nlohmann::json::array();
  for (bool global : c.global_layers) types.push_back(global ? "full_attention" : "sliding_attention");
  j["layer_types"] = types;
  j["rope_parameters"] = {{"full_attention", {{"rope_type", "default"}, {"rope_theta", c.global_rope_theta}}},
                          {"sliding_attention", {{"rope_type", "default"}, {"rope_theta", c.local_rope_theta}}}};
  j["torch_dtype"] = "float32";
  write_label_fields(c.labels, j);
  return j;
}

}  // namespace runner
