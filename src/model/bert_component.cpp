#include "model/bert_component.h"

#include "model/hf_config_fields.h"
#include "model/model_budget.h"
#include "model/execution_options.h"
#include "registry/registry.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <filesystem>

namespace runner {

std::vector<OptionSpec> bert_options() {
  std::vector<std::string> presets = bert_preset_names();
  std::vector<OptionSpec> options = {
      opt::model_path("pretrained", "",
                      "Hugging Face model folder (config.json + weights); empty = random init"),
      opt::choice("preset", presets, "bert-base", "Architecture when no pretrained folder is given"),
      opt::integer("vocab_size", 0, "Override: vocabulary rows, for a random-init model sized to its tokenizer; 0 = keep").at_least(0),
      opt::integer("num_hidden_layers", 0, "Override: encoder layers; 0 = keep").at_least(0),
      opt::integer("hidden_size", 0, "Override: hidden width; 0 = keep").at_least(0),
      opt::integer("num_attention_heads", 0, "Override: attention heads; 0 = keep").at_least(0),
      opt::integer("intermediate_size", 0, "Override: feed-forward width; 0 = keep").at_least(0),
      opt::integer("max_position_embeddings", 0, "Override: position table size; 0 = keep")
          .at_least(0),
      opt::choice("hidden_act", {"", "gelu", "gelu_new", "gelu_pytorch_tanh", "relu"}, "",
                  "Override: activation (gelu = exact erf); empty = keep"),
      opt::number("hidden_dropout_prob", -1, "Override: hidden dropout; negative = keep")
          .at_least(-1).below(1),
      opt::number("attention_probs_dropout_prob", -1,
                  "Override: attention dropout; negative = keep").at_least(-1).below(1),
      opt::number("classifier_dropout", -1,
                  "Override: classifier dropout; negative = keep (unset: hidden dropout)")
          .at_least(-1).below(1),
      opt::number("initializer_range", 0, "Override: init std of weights; 0 = keep").at_least(0),
      opt::number("layer_norm_eps", 0, "Override: LayerNorm epsilon; 0 = keep").at_least(0),
  };
  for (OptionSpec& o : execution_options()) options.push_back(std::move(o));
  return options;
}

void apply_bert_options(const nlohmann::json& o, const ModelContext& context, BertConfig& c) {
  override_positive(o, "vocab_size", c.vocab_size);
  override_positive(o, "num_hidden_layers", c.num_hidden_layers);
  override_positive(o, "hidden_size", c.hidden_size);
  override_positive(o, "num_attention_heads", c.num_attention_heads);
  override_positive(o, "intermediate_size", c.intermediate_size);
  override_positive(o, "max_position_embeddings", c.max_position_embeddings);
  if (!o.value("hidden_act", std::string()).empty()) c.hidden_act = o.at("hidden_act");
  override_number(o, "hidden_dropout_prob", c.hidden_dropout_prob, -1);
  override_number(o, "attention_probs_dropout_prob", c.attention_probs_dropout_prob, -1);
  if (o.value("classifier_dropout", -1.0) >= 0) c.classifier_dropout = o.at("classifier_dropout");
  override_number(o, "initializer_range", c.initializer_range, 0);
  override_number(o, "layer_norm_eps", c.layer_norm_eps, 0);
  if (context.num_labels > 0) {
    LabelFields labels{c.num_labels, c.id2label, c.problem_type};
    apply_dataset_labels(labels, context.num_labels, context.label_names, context.problem_type,
                         context.head == TaskHead::SequenceClassification);
    c.num_labels = labels.num_labels;
    c.id2label = labels.id2label;
    c.problem_type = labels.problem_type;
  }
}

BertConfig bert_config_from_options(const nlohmann::json& o, const ModelContext& context) {
  std::string pretrained = o.value("pretrained", std::string());
  BertConfig c = pretrained.empty()
                     ? bert_preset(o.value("preset", std::string("bert-base")))
                     : read_bert_config((std::filesystem::path(pretrained) / "config.json").string());
  apply_bert_options(o, context, c);
  validate_bert_config(c, pretrained.empty() ? "[model] section" : pretrained + "/config.json");
  return c;
}

ComponentSpec bert_spec() {
  ComponentSpec spec{Kind::Model, "bert", "BERT for sequence classification, Hugging Face compatible",
                     bert_options()};
  spec.hf_model_type = "bert";
  spec.recipe_check = model_recipe_check([](const nlohmann::json& o, long long labels) {
    BertConfig c = bert_config_from_options(o, ModelContext{labels, {}});
    return ModelShape{parameter_count(c), c.max_position_embeddings, {}, c.type_vocab_size};
  });
  return spec;
}

}  // namespace runner
