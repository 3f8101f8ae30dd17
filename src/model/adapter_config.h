// A LoRA adapter folder's adapter_config.json, as Hugging Face PEFT writes it
// (and `runner export RUN --to DIR`): the task, the base it names and the
// adapters' settings. Torch-free: predict reads it before anything loads.
#pragma once

#include "model/lora_options.h"
#include "model/task_head.h"

#include <string>

namespace runner {

struct AdapterConfig {
  TaskHead head = TaskHead::SequenceClassification;  // from task_type
  LoraSettings lora;  // r, alpha, rsLoRA, target_modules; no modules_to_save: their weights are in the file
  std::string base;   // base_model_name_or_path; empty when it names none
};

// Whether `folder` holds adapter_config.json: an adapter folder, not a model's.
bool is_adapter_folder(const std::string& folder);

// `folder`/adapter_config.json read. An InputError naming the file, the key and
// the fix for what is no LoRA adapter of an encoder task, or for what PEFT can
// write but the runner does not compute (DoRA, per-layer ranks, a regular
// expression for target_modules).
AdapterConfig read_adapter_config(const std::string& folder);

}  // namespace runner
