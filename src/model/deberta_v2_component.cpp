#include "model/deberta_v2_component.h"

#include "model/bert_component.h"
#include "model/hf_config_fields.h"
#include "model/model_budget.h"

#include <filesystem>

namespace runner {

std::vector<OptionSpec> deberta_v2_options() {
  std::vector<OptionSpec> options = bert_options();
  for (auto& o : options) {
    if (o.name == "pretrained")
      o = opt::model_path("pretrained", "",
                          "Hugging Face DeBERTa-v2 or DeBERTa-v3 folder (config.json + weights); empty = random init");
    if (o.name == "preset")
      o = opt::choice("preset", deberta_v2_preset_names(), "deberta-v3-base",
                      "Architecture when no pretrained folder is given");
  }
  return options;
}

DebertaV2Config deberta_v2_config_from_options(const nlohmann::json& o, const ModelContext& context) {
  std::string pretrained = o.value("pretrained", std::string());
  std::string config_path = (std::filesystem::path(pretrained) / "config.json").string();
  DebertaV2Config c = pretrained.empty()
                          ? deberta_v2_preset(o.value("preset", std::string("deberta-v3-base")))
                          : deberta_v2_config_from_json(read_config_file(config_path), config_path);
  apply_bert_options(o, context, c.encoder);
  if (o.value("classifier_dropout", -1.0) >= 0) c.cls_dropout = o.at("classifier_dropout").get<double>();
  validate_deberta_v2_config(c, pretrained.empty() ? "[model] section" : config_path);
  return c;
}

ComponentSpec deberta_v2_spec() {
  ComponentSpec spec{Kind::Model, "deberta-v2",
                     "DeBERTa-v2 / DeBERTa-v3 for sequence classification, Hugging Face compatible",
                     deberta_v2_options()};
  spec.hf_model_type = "deberta-v2";
  spec.recipe_check = model_recipe_check([](const nlohmann::json& o, long long labels) {
    DebertaV2Config c = deberta_v2_config_from_options(o, ModelContext{labels, {}});
    return ModelShape{deberta_parameters(c), c.encoder.max_position_embeddings, {}, c.encoder.type_vocab_size};
  });
  return spec;
}

}  // namespace runner
