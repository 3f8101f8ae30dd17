#include "model/distilbert_component.h"

#include "model/model_budget.h"
#include "model/execution_options.h"

#include <filesystem>

namespace runner {

std::vector<OptionSpec> distilbert_options() {
  std::vector<OptionSpec> options = {
      opt::model_path("pretrained", "",
                      "Hugging Face DistilBERT folder (config.json + weights); empty = random init"),
      opt::choice("preset", distilbert_preset_names(), "distilbert-base",
                  "Architecture when no pretrained folder is given"),
      opt::integer("vocab_size", 0, "Override: vocabulary rows, for a random-init model sized to its tokenizer; 0 = keep").at_least(0),
      opt::integer("n_layers", 0, "Override: transformer layers; 0 = keep").at_least(0),
      opt::integer("dim", 0, "Override: hidden width; 0 = keep").at_least(0),
      opt::integer("n_heads", 0, "Override: attention heads; 0 = keep").at_least(0),
      opt::integer("hidden_dim", 0, "Override: feed-forward width; 0 = keep").at_least(0),
      opt::integer("max_position_embeddings", 0, "Override: position table size; 0 = keep").at_least(0),
      opt::choice("activation", {"", "gelu", "gelu_new", "gelu_pytorch_tanh", "relu"}, "",
                  "Override: feed-forward activation (gelu = exact erf); empty = keep"),
      opt::number("dropout", -1, "Override: embedding and feed-forward dropout; negative = keep")
          .at_least(-1).below(1),
      opt::number("attention_dropout", -1, "Override: attention dropout; negative = keep")
          .at_least(-1).below(1),
      opt::number("seq_classif_dropout", -1, "Override: classifier dropout; negative = keep")
          .at_least(-1).below(1),
      opt::flag("sinusoidal_pos_embds", false,
                "Fixed sinusoidal positions (frozen, as Hugging Face's); false = keep the config's"),
      opt::number("initializer_range", 0, "Override: init std of weights; 0 = keep").at_least(0),
  };
  for (OptionSpec& o : execution_options()) options.push_back(std::move(o));
  return options;
}

DistilBertConfig distilbert_config_from_options(const nlohmann::json& o, const ModelContext& context) {
  std::string pretrained = o.value("pretrained", std::string());
  std::string config_path = (std::filesystem::path(pretrained) / "config.json").string();
  DistilBertConfig c = pretrained.empty()
                           ? distilbert_preset(o.value("preset", std::string("distilbert-base")))
                           : distilbert_config_from_json(read_config_file(config_path), config_path);
  override_positive(o, "vocab_size", c.vocab_size);
  override_positive(o, "n_layers", c.n_layers);
  override_positive(o, "dim", c.dim);
  override_positive(o, "n_heads", c.n_heads);
  override_positive(o, "hidden_dim", c.hidden_dim);
  override_positive(o, "max_position_embeddings", c.max_position_embeddings);
  if (!o.value("activation", std::string()).empty()) c.activation = o.at("activation");
  override_number(o, "dropout", c.dropout, -1);
  override_number(o, "attention_dropout", c.attention_dropout, -1);
  override_number(o, "seq_classif_dropout", c.seq_classif_dropout, -1);
  if (o.value("sinusoidal_pos_embds", false)) c.sinusoidal_pos_embds = true;
  override_number(o, "initializer_range", c.initializer_range, 0);
  if (context.num_labels > 0)
    apply_dataset_labels(c.labels, context.num_labels, context.label_names, context.problem_type,
                         context.head == TaskHead::SequenceClassification);
  validate_distilbert_config(c, pretrained.empty() ? "[model] section" : config_path);
  return c;
}

ComponentSpec distilbert_spec() {
  ComponentSpec spec{Kind::Model, "distilbert",
                     "DistilBERT for sequence classification, Hugging Face compatible",
                     distilbert_options()};
  spec.hf_model_type = "distilbert";
  spec.recipe_check = model_recipe_check([](const nlohmann::json& o, long long labels) {
    DistilBertConfig c = distilbert_config_from_options(o, ModelContext{labels, {}});
    return ModelShape{parameter_count(c), c.max_position_embeddings, {}};
  });
  return spec;
}

}  // namespace runner
