// A LoRA adapter folder as Hugging Face PEFT writes it (save_pretrained:
// adapter_config.json and adapter_model.safetensors), read onto its base
// model as PeftModel.from_pretrained(base, folder) reads it: the base's
// weights, the task's head, the adapters under PEFT's names and the modules
// PEFT saved whole. `runner export RUN --to DIR` writes such folders too.
#pragma once

#include "model/adapter_config.h"
#include "model/model_factory.h"

#include <string>

namespace runner {

// The base model folder `base_folder` (config.json + weights) with the
// adapter folder's head, labels, adapters and whole modules, the adapters not
// merged. An InputError naming the file, the key and the fix for what
// read_adapter_config refuses, or for an adapter of another base (a key the
// base lacks, a shape it does not have).
LoadedModel load_adapter_folder(const std::string& adapter_folder, const std::string& base_folder);

}  // namespace runner
