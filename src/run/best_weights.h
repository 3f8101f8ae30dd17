// train.load_best_at_end: the best checkpoint's weights put back into the
// model before the final evaluation and final/, as the Trainer's
// load_best_model_at_end reloads them.
#pragma once

#include "model/model.h"

#include <string>

namespace runner {

// Loads `checkpoints_dir`/`checkpoint`/model.safetensors into `model` after
// checking the checkpoint against its manifest; an InputError naming the
// checkpoint when it fails that check or lacks a parameter.
void load_best_weights(TaskModel& model, const std::string& checkpoints_dir,
                       const std::string& checkpoint);

}  // namespace runner
