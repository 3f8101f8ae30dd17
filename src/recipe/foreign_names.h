// Names that users bring from Hugging Face's Trainer (TrainingArguments) and
// Accelerate, and the runner key each one corresponds to: an unknown recipe key
// or --set key that is one of them gets that key as its hint. This table is the
// one place those names live; a test checks that every runner key in it exists.
#pragma once

#include <string>
#include <vector>

namespace runner {

struct ForeignName {
  std::string name;        // "learning_rate"
  std::string from;        // "Trainer" or "Accelerate"
  std::string runner_key;  // "optimizer.lr"
  std::string example;     // the runner's value as a recipe writes it: "2e-5", "\"fp16\""
};

const std::vector<ForeignName>& foreign_names();
const ForeignName* find_foreign_name(const std::string& name);

// `Hugging Face's "fp16" (Trainer) is train.precision here: write precision =
// "fp16" under [train], or --set train.precision=fp16`; "" when `name` is not one.
std::string foreign_name_hint(const std::string& name);

}  // namespace runner
