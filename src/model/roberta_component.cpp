#include "model/roberta_component.h"

#include "model/bert_component.h"
#include "model/hf_config_fields.h"
#include "model/model_budget.h"
#include "model/roberta_config.h"

#include <filesystem>

namespace runner {

std::vector<OptionSpec> roberta_options() {
  // RoBERTa's config.json uses BERT's names: BERT's overrides, its own folder and presets.
  std::vector<OptionSpec> options = bert_options();
  for (auto& o : options) {
    if (o.name == "pretrained")
      o = opt::model_path("pretrained", "",
                          "Hugging Face RoBERTa or XLM-RoBERTa folder (config.json + weights); "
                          "empty = random init");
    if (o.name == "preset")
      o = opt::choice("preset", roberta_preset_names(), "roberta-base",
                      "Architecture when no pretrained folder is given");
  }
  return options;
}

BertConfig roberta_config_from_options(const nlohmann::json& o, const ModelContext& context) {
  std::string pretrained = o.value("pretrained", std::string());
  std::string config_path = (std::filesystem::path(pretrained) / "config.json").string();
  BertConfig c = pretrained.empty() ? roberta_preset(o.value("preset", std::string("roberta-base")))
                                    : roberta_config_from_json(read_config_file(config_path), config_path);
  apply_bert_options(o, context, c);
  validate_roberta_config(c, pretrained.empty() ? "[model] section" : config_path);
  return c;
}

ComponentSpec roberta_spec() {
  ComponentSpec spec{Kind::Model, "roberta",
                     "RoBERTa (also DistilRoBERTa, XLM-RoBERTa) for sequence classification, "
                     "Hugging Face compatible",
                     roberta_options()};
  spec.hf_model_type = "roberta";
  spec.recipe_check = model_recipe_check([](const nlohmann::json& o, long long labels) {
    BertConfig c = roberta_config_from_options(o, ModelContext{labels, {}});
    // The head's dense layer has the size of BERT's pooler, so BERT's count holds.
    return ModelShape{parameter_count(c), c.max_position_embeddings - c.pad_token_id - 1, {}, c.type_vocab_size};
  });
  return spec;
}

ComponentSpec xlm_roberta_spec() {
  ComponentSpec spec = roberta_spec();
  spec.name = "xlm-roberta";
  spec.doc = "XLM-RoBERTa for sequence classification: RoBERTa with a multilingual vocabulary";
  spec.hf_model_type = "xlm-roberta";
  for (auto& o : spec.options)
    if (o.name == "preset") o = opt::choice("preset", roberta_preset_names(), "xlm-roberta-base", o.doc);
  return spec;
}

}  // namespace runner
