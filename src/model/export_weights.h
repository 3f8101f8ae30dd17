// Writing a weight file (a training checkpoint's model.safetensors, or a saved
// folder's) out as a Hugging Face folder. Free of LibTorch in its interface, so
// that `runner export` (cli/cmd_export.cpp, built without LibTorch) can call it;
// defined in model/export.cpp.
#pragma once

#include "model/task_head.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

struct WeightsExport {
  std::string weights;  // model.safetensors holding every model parameter
  // The architecture as training built it: the run's resolved [model] section
  // and the dataset's labels.
  nlohmann::json model_section;
  long long num_labels = 2;
  std::vector<std::string> label_names;
  std::string problem_type;  // Transformers' name; empty: from num_labels
  TaskHead head = TaskHead::SequenceClassification;
  std::string tokenizer_dir;  // folder with vocab.txt / tokenizer.json ..., or one such file; empty: none
  std::string to;             // created; must not exist or be an empty folder
  // The run's resolved [lora] section (null for a run from before it): with
  // lora.enabled the folder is a PEFT adapter folder (model/lora_export.h)
  // for model.pretrained, which must still be where training read it.
  nlohmann::json lora_section;
  // With lora.enabled: the adapters merged into the weights (merge_lora) and a
  // whole Hugging Face folder written instead of the adapter folder.
  bool merge = false;
};

// Whether `request` writes a PEFT adapter folder rather than a whole model.
bool exports_adapter(const WeightsExport& request);

// Builds the model, loads every parameter from `weights` (a missing one is an
// InputError naming it), writes the folder next to `to` and renames it into
// place, so that a failure leaves `to` as it was. Returns the files written.
std::vector<std::string> export_weights(const WeightsExport& request);

}  // namespace runner
