#include "model/electra_component.h"

#include "model/bert_component.h"
#include "model/hf_config_fields.h"
#include "model/model_budget.h"

#include <algorithm>
#include <filesystem>

namespace runner {

const char* const kElectraCpuBf16Refusal =
    "under CPU bf16 autocast, torch 1.13's layer_norm rejects the bf16 output of "
    "embeddings_project (residual of encoder layer 0) with its fp32 weight; Hugging Face itself "
    "raises \"expected scalar type BFloat16 but found Float\" there";

std::vector<OptionSpec> electra_options() {
  // ELECTRA's config.json uses BERT's names: BERT's overrides, its own folder,
  // presets and embedding width.
  std::vector<OptionSpec> options = bert_options();
  for (auto& o : options) {
    if (o.name == "pretrained")
      o = opt::model_path("pretrained", "",
                          "Hugging Face ELECTRA discriminator folder (config.json + weights); "
                          "empty = random init");
    if (o.name == "preset")
      o = opt::choice("preset", electra_preset_names(), "electra-small",
                      "Architecture when no pretrained folder is given");
  }
  auto after_preset = std::find_if(options.begin(), options.end(),
                                   [](const OptionSpec& o) { return o.name == "preset"; }) + 1;
  options.insert(after_preset,
                 opt::integer("embedding_size", 0,
                              "Override: embedding width (projected to hidden_size); 0 = keep")
                     .at_least(0));
  return options;
}

ElectraConfig electra_config_from_options(const nlohmann::json& o, const ModelContext& context) {
  std::string pretrained = o.value("pretrained", std::string());
  std::string config_path = (std::filesystem::path(pretrained) / "config.json").string();
  ElectraConfig c = pretrained.empty()
                        ? electra_preset(o.value("preset", std::string("electra-small")))
                        : electra_config_from_json(read_config_file(config_path), config_path);
  override_positive(o, "embedding_size", c.embedding_size);
  apply_bert_options(o, context, c.encoder);
  validate_electra_config(c, pretrained.empty() ? "[model] section" : config_path);
  return c;
}

ComponentSpec electra_spec() {
  ComponentSpec spec{Kind::Model, "electra",
                     "ELECTRA discriminator for sequence classification, Hugging Face compatible",
                     electra_options()};
  spec.hf_model_type = "electra";
  spec.cpu_bf16_refusal = kElectraCpuBf16Refusal;
  spec.recipe_check = model_recipe_check([](const nlohmann::json& o, long long labels) {
    ElectraConfig c = electra_config_from_options(o, ModelContext{labels, {}});
    return ModelShape{parameter_count(c), c.encoder.max_position_embeddings, {}, c.encoder.type_vocab_size};
  });
  return spec;
}

}  // namespace runner
