#include "model/bert_config.h"

#include "util/diagnostic.h"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

namespace runner {
namespace {

[[noreturn]] void config_error(const std::string& where, const std::string& key,
                               const std::string& message, const std::string& hint = {}) {
  throw InputError(make_error(SourceLocation{where, 0, 0, {}}, key, message, hint));
}

long long int_field(const nlohmann::json& j, const char* key, long long def,
                    const std::string& where) {
  if (!j.contains(key) || j.at(key).is_null()) return def;
  const auto& v = j.at(key);
  if (!v.is_number_integer())
    config_error(where, key, fmt::format("expected an integer, found {}", v.dump()));
  return v.get<long long>();
}

double number_field(const nlohmann::json& j, const char* key, double def,
                    const std::string& where) {
  if (!j.contains(key) || j.at(key).is_null()) return def;
  const auto& v = j.at(key);
  if (!v.is_number()) config_error(where, key, fmt::format("expected a number, found {}", v.dump()));
  return v.get<double>();
}

std::string string_field(const nlohmann::json& j, const char* key, const std::string& def,
                         const std::string& where) {
  if (!j.contains(key) || j.at(key).is_null()) return def;
  const auto& v = j.at(key);
  if (!v.is_string()) config_error(where, key, fmt::format("expected a string, found {}", v.dump()));
  return v.get<std::string>();
}

// id2label is {"0": "neg", "1": "pos"}; the ids must be exactly 0..n-1.
std::vector<std::string> read_id2label(const nlohmann::json& j, const std::string& where) {
  if (!j.contains("id2label") || j.at("id2label").is_null()) return {};
  const auto& m = j.at("id2label");
  if (!m.is_object()) config_error(where, "id2label", "expected an object {\"0\": \"name\", ...}");
  std::vector<std::string> names(m.size());
  std::vector<bool> seen(m.size(), false);
  for (const auto& [key, value] : m.items()) {
    size_t used = 0;
    long long id = -1;
    try { id = std::stoll(key, &used); } catch (const std::exception&) {}
    if (used != key.size() || id < 0 || id >= static_cast<long long>(names.size()) || seen[id])
      config_error(where, "id2label", fmt::format("key \"{}\" is not one of the ids 0..{}", key,
                                                  names.size() - 1));
    if (!value.is_string()) config_error(where, "id2label." + key, "expected a label name string");
    names[id] = value.get<std::string>();
    seen[id] = true;
  }
  return names;
}

const std::set<std::string>& modelled_keys() {
  static const std::set<std::string> keys = {
      "vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
      "intermediate_size", "hidden_act", "max_position_embeddings", "type_vocab_size",
      "layer_norm_eps", "hidden_dropout_prob", "attention_probs_dropout_prob",
      "classifier_dropout", "initializer_range", "pad_token_id", "num_labels", "id2label",
      "label2id", "problem_type", "architectures", "torch_dtype", "model_type",
      "transformers_version", "position_embedding_type"};
  return keys;
}

BertConfig make_preset(long long layers, long long hidden, long long heads) {
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
      {"bert-tiny", make_preset(2, 128, 2)},   {"bert-mini", make_preset(4, 256, 4)},
      {"bert-small", make_preset(4, 512, 8)},  {"bert-medium", make_preset(8, 512, 8)},
      {"bert-base", make_preset(12, 768, 12)},
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
  c.id2label = read_id2label(j, where);
  long long default_labels = c.id2label.empty() ? 2 : static_cast<long long>(c.id2label.size());
  c.num_labels = int_field(j, "num_labels", default_labels, where);
  c.problem_type = string_field(j, "problem_type", "", where);
  for (const auto& [key, value] : j.items())
    if (!modelled_keys().count(key)) c.extra[key] = value;
  validate_bert_config(c, where);
  return c;
}

BertConfig read_bert_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) config_error(path, "", "cannot open the model config", "check the model folder path");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) config_error(path, "", "not valid JSON");
  return bert_config_from_json(j, path);
}

void validate_bert_config(const BertConfig& c, const std::string& where) {
  auto positive = [&](const char* key, long long v) {
    if (v <= 0) config_error(where, key, fmt::format("expected a positive integer, found {}", v));
  };
  positive("vocab_size", c.vocab_size);
  positive("hidden_size", c.hidden_size);
  positive("num_hidden_layers", c.num_hidden_layers);
  positive("num_attention_heads", c.num_attention_heads);
  positive("intermediate_size", c.intermediate_size);
  positive("max_position_embeddings", c.max_position_embeddings);
  positive("type_vocab_size", c.type_vocab_size);
  positive("num_labels", c.num_labels);
  if (c.hidden_size % c.num_attention_heads != 0)
    config_error(where, "num_attention_heads",
                 fmt::format("hidden_size {} is not a multiple of num_attention_heads {}",
                             c.hidden_size, c.num_attention_heads));
  static const std::set<std::string> acts = {"gelu", "gelu_new", "gelu_pytorch_tanh", "relu"};
  if (!acts.count(c.hidden_act))
    config_error(where, "hidden_act",
                 fmt::format("expected one of gelu, gelu_new, gelu_pytorch_tanh, relu; found \"{}\"",
                             c.hidden_act));
  if (!c.id2label.empty() && static_cast<long long>(c.id2label.size()) != c.num_labels)
    config_error(where, "id2label",
                 fmt::format("has {} labels but num_labels is {}", c.id2label.size(), c.num_labels));
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
  nlohmann::json id2label = nlohmann::json::object(), label2id = nlohmann::json::object();
  for (long long i = 0; i < c.num_labels; ++i) {
    id2label[std::to_string(i)] = c.label_name(i);
    label2id[c.label_name(i)] = i;
  }
  j["id2label"] = id2label;
  j["label2id"] = label2id;
  if (!c.problem_type.empty()) j["problem_type"] = c.problem_type;
  return j;
}

}  // namespace runner
