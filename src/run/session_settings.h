// A run's recipe decoded once: the typed settings of [run], [data] and
// [train], and the component sections handed to their components as they
// are. `runner run` and `runner resume` decode it once per run
// (decode_settings) and pass it down to the checks, the resume plan and the
// training session. Free of LibTorch.
#pragma once

#include "data/data_options.h"
#include "model/lora_options.h"
#include "recipe/recipe.h"
#include "run/run_options.h"
#include "train/train_options.h"

#include <nlohmann/json.hpp>

namespace runner {

struct SessionSettings {
  RunSettings run;
  DataSettings data;
  TrainerConfig train;
  LoraSettings lora;
  nlohmann::json data_section, tokenizer, model, optimizer, scheduler, topology;
};

SessionSettings decode_settings(const Recipe& recipe);

}  // namespace runner
