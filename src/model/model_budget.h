// What a model costs, known before it is built: its parameter count from its
// configuration, and whether it fits the recipe (positions for data.max_length)
// and this machine (memory). Torch-free: `runner validate` uses it.
#pragma once

#include "model/bert_config.h"
#include "model/distilbert_config.h"
#include "model/electra_config.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace runner {

// Parameters by part, as doubles: a hostile size must not overflow the count.
struct ParameterCount {
  double embeddings = 0, layers = 0, head = 0;
  double total() const { return embeddings + layers + head; }
};

// The parameters of each family's ...ForSequenceClassification, as Hugging Face builds it.
ParameterCount parameter_count(const BertConfig& c);
ParameterCount parameter_count(const ElectraConfig& c);
ParameterCount parameter_count(const DistilBertConfig& c);

// What a recipe's model is, for the checks below.
struct ModelShape {
  ParameterCount parameters;
  long long max_position_embeddings = 0;
  std::string source;  // "the [model] section" or the config.json it was read from
  long long type_rows = 0;  // rows of the token type table; 0: the model reads no type ids
};

// Training holds at least the weights and their gradients, in fp32; any use
// of the model (predict, export) at least the weights.
constexpr double kTrainingBytesPerParameter = 8;
constexpr double kWeightBytesPerParameter = 4;

// Throws InputError naming `where` when the fp32 weights alone exceed this
// machine's usable memory: a config.json with a hostile size must stop before
// LibTorch tries to allocate it. Each family's validate_*_config calls it.
void require_weights_fit(const ParameterCount& count, const std::string& where);

// The problems of a model in a resolved recipe: `shape` builds the family's
// configuration from recipe["model"] (throwing InputError when its settings do
// not fit together); then the positions data.max_length needs and the memory
// training needs are checked against the model and `memory_bytes` (0: unknown).
Diagnostics check_model_in_recipe(const nlohmann::json& recipe, const std::function<ModelShape()>& shape,
                                  double memory_bytes);

// The refusal of a tokenizer that gives token type id `top` to a model whose
// token type table has `rows` rows (LibTorch's index error at the first
// step otherwise). One message for validate and the run; the caller locates it.
Diagnostic type_ids_past_table(long long top, long long rows);

// validate's side of it, without tokenizing the data: the recipe's tokenizer
// is asked for the largest type id it gives the dataset's examples (pairs or
// single texts). Nothing when the tokenizer or dataset cannot be made (their
// own checks report that) or when the ids fit.
std::optional<Diagnostic> check_type_ids_in_recipe(const nlohmann::json& recipe, long long type_rows);

// A folder with config.json (a model) but none of hub::weight_file_names(): the
// error for model.pretrained that names the folder, what it lacks and the fix.
std::optional<Diagnostic> missing_weights(const std::string& folder);

// A model component's ComponentSpec::recipe_check: `config_of` gives the
// family's configuration for a resolved [model] section and a label count
// (0: the configuration's own), as ModelShape's parameters and positions.
// Skipped when model.pretrained names a folder without config.json (the path
// check reports it); a folder without weights is an error; memory is this
// machine's usable memory.
std::function<Diagnostics(const nlohmann::json&)> model_recipe_check(
    std::function<ModelShape(const nlohmann::json& model_section, long long num_labels)> config_of);

}  // namespace runner
