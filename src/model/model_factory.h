// Building models through the registry: from a recipe's [model] section (train,
// resume, evaluation, export) or from a saved Hugging Face folder (predict,
// model.pretrained). Every model is built here, whatever its family.
#pragma once

#include "model/checkpoint.h"
#include "model/lora.h"
#include "model/model.h"

#include <memory>
#include <string>

namespace runner {

struct LoadedModel {
  std::shared_ptr<TaskModel> model;
  std::string component;  // the Model component that built it ("bert")
  LoadReport report;      // empty source when nothing was loaded
  long long max_positions = 0;  // config.json's max_position_embeddings; 0 when not read
  LoraReport lora;              // the adapters attached (lora.enabled false: none)
};

// Builds the model a resolved [model] section describes (model.type picks the
// family): Hugging Face's seeded init when `pretrained` is empty, else its
// weights with only the missing parameters initialised, from the generator
// state before construction, as from_pretrained does. `weights` (a file or
// folder) replaces `pretrained`'s weights when given: a run's checkpoint.
// With `lora` enabled the adapters are attached (model/lora.h): after the
// pretrained weights load, which tells what is newly initialised, or before a
// run's checkpoint loads, which holds them. A checkpoint that holds only what
// trains (model/base_weights.h) goes over the pretrained model built as
// training built it.
LoadedModel build_model(const nlohmann::json& model_section, const ModelContext& context,
                        const std::string& weights = {}, const LoraSettings& lora = {});

// The [model] section's settings of a built model: the execution, gradient
// checkpointing, question answering's loss over the padding.
void apply_model_settings(TaskModel& model, const nlohmann::json& model_section);

// build_model, with a load warning (missing or unexpected keys) on stderr.
std::shared_ptr<TaskModel> make_model(const nlohmann::json& model_section,
                                               const ModelContext& context);

// The Model component that reads `folder`/config.json's model_type; an
// InputError naming the file and listing the known model types otherwise.
std::string model_component_for_folder(const std::string& folder);

// A saved Hugging Face folder as it is: the family and labels from its
// config.json, the weights from `weights` (a file or folder; empty: `folder`).
LoadedModel load_model_folder(const std::string& folder, const std::string& weights = {});

// A saved Hugging Face folder rebuilt for another task, as from_pretrained
// with num_labels does: `context`'s head and labels in place of config.json's,
// the weights loaded, what they lack (a new head) initialised, then the
// adapters `lora` describes attached (none when it is not enabled).
LoadedModel load_model_folder_as(const std::string& folder, const ModelContext& context, const LoraSettings& lora);

// The modules load_model_folder_as would build, uninitialised and with no
// weights read: their names and shapes, cheaply.
std::shared_ptr<TaskModel> model_folder_skeleton(const std::string& folder, const ModelContext& context);

}  // namespace runner
