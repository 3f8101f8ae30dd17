#include "model/hf_config_fields.h"

#include "util/json_input.h"
#include "util/numbers.h"

#include "util/diagnostic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <stdexcept>

namespace runner {

void config_error(const std::string& where, const std::string& key, const std::string& message,
                  const std::string& hint) {
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

bool bool_field(const nlohmann::json& j, const char* key, bool def, const std::string& where) {
  if (!j.contains(key) || j.at(key).is_null()) return def;
  const auto& v = j.at(key);
  if (!v.is_boolean())
    config_error(where, key, fmt::format("expected true or false, found {}", v.dump()));
  return v.get<bool>();
}

nlohmann::json extra_fields(const nlohmann::json& j, const std::vector<std::string>& family_keys) {
  static const std::set<std::string> shared = {"num_labels", "id2label", "label2id", "problem_type",
                                               "architectures", "torch_dtype", "model_type",
                                               "transformers_version"};
  nlohmann::json extra = nlohmann::json::object();
  for (const auto& [key, value] : j.items())
    if (!shared.count(key) && std::find(family_keys.begin(), family_keys.end(), key) == family_keys.end())
      extra[key] = value;
  return extra;
}

nlohmann::json read_config_file(const std::string& path) {
  nlohmann::json j = read_json_document(path, "", "check the model folder path; config.json is "
                                                  "what save_pretrained writes");
  if (!j.is_object()) config_error(path, "", "expected a JSON object (a Hugging Face config.json)");
  return j;
}

std::vector<std::string> read_id2label(const nlohmann::json& j, const std::string& where) {
  if (!j.contains("id2label") || j.at("id2label").is_null()) return {};
  const auto& m = j.at("id2label");
  if (!m.is_object()) config_error(where, "id2label", "expected an object {\"0\": \"name\", ...}");
  std::vector<std::string> names(m.size());
  std::vector<bool> seen(m.size(), false);
  for (const auto& [key, value] : m.items()) {
    std::string why;
    long long id = parse_integer(key, why, 0, static_cast<long long>(names.size()) - 1).value_or(-1);
    if (id < 0 || seen[id])
      config_error(where, "id2label", fmt::format("key \"{}\" is not one of the ids 0..{}", key,
                                                  names.size() - 1));
    if (!value.is_string()) config_error(where, "id2label." + key, "expected a label name string");
    names[id] = value.get<std::string>();
    seen[id] = true;
  }
  return names;
}

std::string LabelFields::label_name(long long id) const {
  if (id >= 0 && id < static_cast<long long>(id2label.size())) return id2label[id];
  return fmt::format("LABEL_{}", id);
}

LabelFields read_label_fields(const nlohmann::json& j, const std::string& where) {
  LabelFields l;
  l.id2label = read_id2label(j, where);
  // Hugging Face derives num_labels from id2label when the key is absent.
  long long default_labels = l.id2label.empty() ? 2 : static_cast<long long>(l.id2label.size());
  l.num_labels = int_field(j, "num_labels", default_labels, where);
  l.problem_type = string_field(j, "problem_type", "", where);
  return l;
}

void write_label_fields(const LabelFields& labels, nlohmann::json& j) {
  nlohmann::json id2label = nlohmann::json::object(), label2id = nlohmann::json::object();
  for (long long i = 0; i < labels.num_labels; ++i) {
    id2label[std::to_string(i)] = labels.label_name(i);
    label2id[labels.label_name(i)] = i;
  }
  j["id2label"] = id2label;
  j["label2id"] = label2id;
  if (!labels.problem_type.empty()) j["problem_type"] = labels.problem_type;
}

void apply_dataset_labels(LabelFields& labels, long long num_labels, const std::vector<std::string>& names,
                          const std::string& problem_type, bool sequence_head) {
  // A pretrained head's names describe its own classes, not the dataset's.
  if (labels.num_labels != num_labels || labels.id2label.size() != names.size())
    labels.id2label.clear();
  labels.num_labels = num_labels;
  if (!names.empty()) labels.id2label = names;
  labels.problem_type = !sequence_head         ? ""
                        : !problem_type.empty() ? problem_type
                        : num_labels == 1       ? "regression"
                                                : "single_label_classification";
}

void validate_label_fields(const LabelFields& labels, const std::string& where) {
  require_positive(where, "num_labels", labels.num_labels);
  if (!labels.id2label.empty() && static_cast<long long>(labels.id2label.size()) != labels.num_labels)
    config_error(where, "id2label", fmt::format("has {} labels but num_labels is {}",
                                                labels.id2label.size(), labels.num_labels));
}

void override_positive(const nlohmann::json& options, const char* key, long long& field) {
  long long v = options.value(key, 0LL);
  if (v > 0) field = v;
}

void override_number(const nlohmann::json& options, const char* key, double& field, double keep) {
  double v = options.value(key, keep);
  if (v != keep) field = v;
}

void require_positive(const std::string& where, const char* key, long long value) {
  if (value <= 0) config_error(where, key, fmt::format("expected a positive integer, found {}", value));
}

void require_probability(const std::string& where, const char* key, double p) {
  if (!(p >= 0 && p < 1))
    config_error(where, key, fmt::format("expected a dropout probability in [0, 1), found {}", p),
                 "a probability of 1 or more would drop everything: Hugging Face's defaults are 0.1 or 0");
}

void require_positive_number(const std::string& where, const char* key, double v) {
  if (!(v > 0 && std::isfinite(v)))
    config_error(where, key, fmt::format("expected a finite number above 0, found {}", v));
}

void require_non_negative_number(const std::string& where, const char* key, double v) {
  if (!(v >= 0 && std::isfinite(v)))
    config_error(where, key, fmt::format("expected a finite number of 0 or more, found {}", v));
}

void require_token_id(const std::string& where, const char* key, long long id, long long vocab_size) {
  if (id < 0 || id >= vocab_size)
    config_error(where, key, fmt::format("expected a token id in 0..{} (vocab_size {}), found {}", vocab_size - 1,
                                         vocab_size, id));
}

void require_activation(const std::string& where, const char* key, const std::string& activation) {
  static const std::set<std::string> acts = {"gelu", "gelu_new", "gelu_pytorch_tanh", "relu"};
  if (!acts.count(activation))
    config_error(where, key,
                 fmt::format("expected one of gelu, gelu_new, gelu_pytorch_tanh, relu; found \"{}\"",
                             activation));
}

}  // namespace runner
