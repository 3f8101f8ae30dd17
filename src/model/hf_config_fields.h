// Reading and writing the fields of a Hugging Face config.json that every
// family's config parser shares: typed field readers whose errors name the file
// and key, and the label fields (num_labels, id2label, label2id, problem_type).
// Torch-free.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

// Throws InputError at `where` (a file or "[model] section") for `key`.
[[noreturn]] void config_error(const std::string& where, const std::string& key,
                               const std::string& message, const std::string& hint = {});

// The field's value, `def` when it is absent or null; InputError when mistyped.
long long int_field(const nlohmann::json& j, const char* key, long long def,
                    const std::string& where);
double number_field(const nlohmann::json& j, const char* key, double def,
                    const std::string& where);
std::string string_field(const nlohmann::json& j, const char* key, const std::string& def,
                         const std::string& where);
bool bool_field(const nlohmann::json& j, const char* key, bool def, const std::string& where);

// The keys of `j` that neither `family_keys` nor the keys every family shares
// (labels, architectures, model_type, torch_dtype, transformers_version) name:
// kept so that a saved folder carries them on.
nlohmann::json extra_fields(const nlohmann::json& j, const std::vector<std::string>& family_keys);

// A config.json file as a JSON object; InputError naming the file otherwise.
nlohmann::json read_config_file(const std::string& path);

// id2label is {"0": "neg", "1": "pos"}; the ids must be exactly 0..n-1. Empty when absent.
std::vector<std::string> read_id2label(const nlohmann::json& j, const std::string& where);

// The classification fields of a config.json.
struct LabelFields {
  long long num_labels = 2;
  std::vector<std::string> id2label;  // empty: LABEL_0, LABEL_1, ...
  std::string problem_type;           // "", "regression", "single_label_classification", "multi_label_classification"

  std::string label_name(long long id) const;
};

LabelFields read_label_fields(const nlohmann::json& j, const std::string& where);
// Writes id2label and label2id for every class, and problem_type when set.
void write_label_fields(const LabelFields& labels, nlohmann::json& j);
// The dataset's labels replace the config's (names only when the counts agree).
// `problem_type` empty: Transformers' rule (regression for one label). A token
// or span head has no problem_type in Transformers: `sequence_head` false clears it.
void apply_dataset_labels(LabelFields& labels, long long num_labels, const std::vector<std::string>& names,
                          const std::string& problem_type = {}, bool sequence_head = true);
// num_labels positive and id2label of that size; InputError naming `where`.
void validate_label_fields(const LabelFields& labels, const std::string& where);

// A recipe's [model] override of a config field: an integer option replaces the
// field when positive (0 = keep), a number when it differs from `keep`.
void override_positive(const nlohmann::json& options, const char* key, long long& field);
void override_number(const nlohmann::json& options, const char* key, double& field, double keep);

// Throws InputError unless `value` is positive.
void require_positive(const std::string& where, const char* key, long long value);
// Throws InputError unless `p` is a dropout probability, in [0, 1).
void require_probability(const std::string& where, const char* key, double p);
// Throws InputError unless `v` is finite and above 0 (an epsilon, a RoPE base).
void require_positive_number(const std::string& where, const char* key, double v);
// Throws InputError unless `v` is finite and 0 or more (an initializer's std).
void require_non_negative_number(const std::string& where, const char* key, double v);
// Throws InputError unless `id` is a row of a vocab_size-row embedding table.
void require_token_id(const std::string& where, const char* key, long long id, long long vocab_size);
// Throws InputError unless `activation` is one the encoders implement.
void require_activation(const std::string& where, const char* key, const std::string& activation);

}  // namespace runner
