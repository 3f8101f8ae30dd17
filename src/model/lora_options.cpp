#include "model/lora_options.h"

#include "recipe/sections.h"

#include <cmath>
#include <map>

namespace runner {
namespace {

using L = LoraSettings;

OptionBinding<LoraSettings> declare_lora_options() {
  OptionBinding<L> b;
  b.bind(opt::flag("enabled", false,
                   "Train low-rank adapters on the pretrained model's Linear layers instead of every "
                   "weight; the base weights stay frozen"),
         &L::enabled);
  // At least 1: a rank-0 adapter is no adapter (PEFT refuses it too).
  b.bind(opt::integer("r", 8, "Rank of each adapter (PEFT's r)").at_least(1).at_most(65536), &L::r);
  b.bind(opt::number("alpha", 8.0, "Adapter scale numerator (PEFT's lora_alpha): the update is "
                                   "B A x * alpha / r").above(0),
         &L::alpha);
  b.bind(opt::number("dropout", 0.0, "Dropout on each adapter's input in training (PEFT's lora_dropout)")
             .at_least(0)
             .below(1),
         &L::dropout);
  b.bind(opt::strings("target_modules", {},
                      "Linear modules that get adapters, by Transformers module name matched on the end of "
                      "the full dotted path (\"query\", \"attention.self.value\"); empty = the family's "
                      "preset: query/value (BERT, RoBERTa, XLM-R, ELECTRA), query_proj/value_proj "
                      "(DeBERTa-v2), q_lin/v_lin (DistilBERT), Wqkv (ModernBERT)"),
         &L::target_modules);
  b.bind(opt::flag("rslora", false, "Rank-stabilised scale alpha / sqrt(r) instead of alpha / r (PEFT's "
                                    "use_rslora)"),
         &L::rslora);
  b.bind(opt::strings("modules_to_save", {},
                      "Further modules trained in full and saved with the adapters, matched as target_modules "
                      "(\"pooler\"); every parameter the pretrained weights lacked (a new classifier) is "
                      "trained in full anyway"),
         &L::modules_to_save);
  b.bind_choice(opt::choice("bias", {}, "none",
                            "Biases trained beside the adapters: none, those of the adapted layers "
                            "(lora_only), or every bias (all)"),
                &L::bias, {{"none", LoraBias::None}, {"lora_only", LoraBias::LoraOnly}, {"all", LoraBias::All}});
  return b;
}

}  // namespace

double LoraSettings::scale() const {
  return rslora ? alpha / std::sqrt(static_cast<double>(r)) : alpha / static_cast<double>(r);
}

const OptionBinding<LoraSettings>& lora_options() {
  static const OptionBinding<LoraSettings> options = declare_lora_options();
  return options;
}

LoraSettings lora_settings_from(const nlohmann::json& lora_section) { return lora_options().decode(lora_section); }

std::string lora_bias_name(LoraBias b) {
  LoraSettings s;
  s.bias = b;
  return lora_options().encode(s).at("bias");
}

std::vector<std::string> lora_preset_targets(const std::string& model_type) {
  static const std::map<std::string, std::vector<std::string>> presets = {
      {"bert", {"query", "value"}},          {"roberta", {"query", "value"}},
      {"xlm-roberta", {"query", "value"}},   {"electra", {"query", "value"}},
      {"deberta-v2", {"query_proj", "value_proj"}}, {"distilbert", {"q_lin", "v_lin"}},
      {"modernbert", {"Wqkv"}},
  };
  auto it = presets.find(model_type);
  return it == presets.end() ? std::vector<std::string>{} : it->second;
}

SectionSpec lora_section() {
  SectionSpec s;
  s.name = "lora";
  s.doc = "Low-rank adapters (LoRA, as Hugging Face PEFT): the base model frozen, adapters and new layers trained";
  s.options = lora_options().specs();
  return s;
}

}  // namespace runner
