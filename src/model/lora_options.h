// The [lora] section: low-rank adapters on a pretrained encoder's Linear
// layers, as Hugging Face PEFT's LoraConfig describes them, each option
// declared once together with the LoraSettings field it writes. Torch-free:
// the front runner validates the section; model/lora.h builds the adapters.
#pragma once

#include "registry/option_binding.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

// Which biases train beside the adapters (PEFT's LoraConfig.bias).
enum class LoraBias { None, LoraOnly, All };

struct LoraSettings {
  bool enabled{};
  long long r{};
  double alpha{};
  double dropout{};
  // Transformers module names, each matching a Linear whose dotted path is it
  // or ends with "." + it; empty: the family's preset (lora_preset_targets).
  std::vector<std::string> target_modules;
  bool rslora{};
  // Modules trained in full and saved with the adapters, matched as targets are.
  std::vector<std::string> modules_to_save;
  LoraBias bias{};

  // The adapter's output factor: alpha / r, or alpha / sqrt(r) with rsLoRA.
  double scale() const;
};

// Every [lora] option, bound to its field.
const OptionBinding<LoraSettings>& lora_options();

// The settings of a resolved [lora] section (declared defaults for what it lacks).
LoraSettings lora_settings_from(const nlohmann::json& lora_section);

// PEFT's name for a bias choice: "none", "lora_only", "all".
std::string lora_bias_name(LoraBias b);

// The modules a family adapts when target_modules is empty: PEFT's preset
// where it has one (BERT, RoBERTa, XLM-R, ELECTRA: query and value; DeBERTa-v2:
// query_proj and value_proj), else the attention's query and value inputs
// (DistilBERT q_lin and v_lin, ModernBERT's fused Wqkv); empty for a family
// it does not know (a plugin's). `model_type` is the
// [model] component's name ("bert").
std::vector<std::string> lora_preset_targets(const std::string& model_type);

}  // namespace runner
