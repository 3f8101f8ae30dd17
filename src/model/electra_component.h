// The `electra` model component: its options, the configuration they describe and
// its registered spec (torch-free; the family that builds ElectraForSequenceClassification,
// the discriminator, is in model/family_builders.cpp).
#pragma once

#include "model/electra_config.h"
#include "model/model_context.h"
#include "registry/registry.h"

#include <vector>

namespace runner {

// Every option of model.type = "electra", under ELECTRA's config.json names.
std::vector<OptionSpec> electra_options();

// The pretrained folder's config.json or the preset, then the recipe's
// overrides, then the dataset's labels (context.num_labels > 0).
ElectraConfig electra_config_from_options(const nlohmann::json& options, const ModelContext& context);

// Why ELECTRA cannot train under CPU bf16 autocast on LibTorch 1.13 (ComponentSpec::cpu_bf16_refusal).
extern const char* const kElectraCpuBf16Refusal;

ComponentSpec electra_spec();

}  // namespace runner
