#include "model/modernbert_component.h"

#include "model/execution_options.h"
#include "model/model_budget.h"

#include <filesystem>

namespace runner {

std::vector<OptionSpec> modernbert_options() {
  std::vector<OptionSpec> options = {
      opt::model_path("pretrained", "", "Hugging Face ModernBERT folder (config.json + weights); empty = random init"),
      opt::choice("preset", modernbert_preset_names(), "modernbert-base", "Architecture when no pretrained folder is given"),
      opt::integer("vocab_size", 0, "Override: vocabulary rows, for a random-init model sized to its tokenizer; 0 = keep").at_least(0),
      opt::integer("num_hidden_layers", 0, "Override: encoder layers (every third global); 0 = keep").at_least(0),
      opt::integer("hidden_size", 0, "Override: hidden width; 0 = keep").at_least(0),
      opt::integer("num_attention_heads", 0, "Override: attention heads; 0 = keep").at_least(0),
      opt::integer("intermediate_size", 0, "Override: GeGLU width; 0 = keep").at_least(0),
      opt::integer("local_attention", 0, "Override: the window of the local layers; 0 = keep").at_least(0),
      opt::choice("classifier_pooling", {"", "cls", "mean"}, "", "Override: the head reads the first token or the mean; empty = keep"),
      opt::number("classifier_dropout", -1, "Override: classifier dropout; negative = keep").at_least(-1).below(1),
      opt::number("initializer_range", 0, "Override: init std of weights; 0 = keep").at_least(0),
  };
  for (OptionSpec& o : execution_options()) options.push_back(std::move(o));
  return options;
}

ModernBertConfig modernbert_config_from_options(const nlohmann::json& o, const ModelContext& context) {
  std::string pretrained = o.value("pretrained", std::string());
  std::string config_path = (std::filesystem::path(pretrained) / "config.json").string();
  ModernBertConfig c = pretrained.empty() ? modernbert_preset(o.value("preset", std::string("modernbert-base")))
                                          : modernbert_config_from_json(read_config_file(config_path), config_path);
  const long long layers_before = c.num_hidden_layers;
  override_positive(o, "num_hidden_layers", c.num_hidden_layers);
  override_positive(o, "vocab_size", c.vocab_size);
  override_positive(o, "hidden_size", c.hidden_size);
  override_positive(o, "num_attention_heads", c.num_attention_heads);
  override_positive(o, "intermediate_size", c.intermediate_size);
  override_positive(o, "local_attention", c.local_attention);
  const std::string where = pretrained.empty() ? "[model] section" : config_path;
  if (c.num_hidden_layers != layers_before) {  // ModernBERT's own pattern: every third layer global
    require_sizes_fit(c, where);
    c.global_layers.clear();
    for (long long i = 0; i < c.num_hidden_layers; ++i) c.global_layers.push_back(i % 3 == 0);
  }
  if (!o.value("classifier_pooling", std::string()).empty()) c.classifier_pooling = o.at("classifier_pooling");
  override_number(o, "classifier_dropout", c.classifier_dropout, -1);
  override_number(o, "initializer_range", c.initializer_range, 0);
  if (context.num_labels > 0)
    apply_dataset_labels(c.labels, context.num_labels, context.label_names, context.problem_type,
                         context.head == TaskHead::SequenceClassification);
  validate_modernbert_config(c, where);
  return c;
}

ComponentSpec modernbert_spec() {
  ComponentSpec spec{Kind::Model, "modernbert", "ModernBERT for sequence classification, Hugging Face compatible",
                     modernbert_options()};
  spec.hf_model_type = "modernbert";
  spec.recipe_check = model_recipe_check([](const nlohmann::json& o, long long labels) {
    ModernBertConfig c = modernbert_config_from_options(o, ModelContext{labels, {}});
    return ModelShape{modernbert_parameters(c), c.max_position_embeddings, {}};
  });
  return spec;
}

}  // namespace runner
