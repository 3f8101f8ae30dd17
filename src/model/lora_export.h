// A LoRA run's trained tensors written as a Hugging Face PEFT adapter folder:
// adapter_config.json and adapter_model.safetensors with PEFT's key names.
#pragma once

#include "model/lora.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

// PEFT's saved name of one of the model's parameters: "base_model.model." + name.
std::string peft_key(const std::string& name);

// The modules_to_save of adapter_config.json for parameters trained whole:
// each parameter's module, raised to its parent while every parameter under
// the parent trains whole (RoBERTa's classifier.dense and classifier.out_proj
// are saved as "classifier"), below the model's top-level modules.
std::vector<std::string> peft_modules_to_save(TaskModel& model, const std::vector<std::string>& trained_in_full);

struct AdapterExport {
  LoraSettings settings;
  LoraReport report;
  std::string base_model;  // adapter_config.json's base_model_name_or_path
  std::string task_type;   // "SEQ_CLS", "TOKEN_CLS" or "QUESTION_ANS"
};

// adapter_config.json's object.
nlohmann::json peft_adapter_config(TaskModel& model, const AdapterExport& a);

// Writes adapter_config.json and adapter_model.safetensors into `dir` (made if absent).
void write_peft_adapter(TaskModel& model, const AdapterExport& a, const std::string& dir);

}  // namespace runner
