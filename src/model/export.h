// Writing a model as a Hugging Face folder that transformers' from_pretrained
// loads unchanged: config.json, model.safetensors and the tokenizer files.
#pragma once

#include "model/model.h"

#include <string>
#include <vector>

namespace runner {

// The tokenizer files copied when present.
const std::vector<std::string>& tokenizer_file_names();

// save_pretrained(model, dir), then copies the tokenizer files found in
// `tokenizer_dir` (empty: none). Returns the names copied. Throws InputError if
// tokenizer_dir has none of them.
std::vector<std::string> export_hf_folder(TaskModel& model, const std::string& dir,
                                          const std::string& tokenizer_dir);

}  // namespace runner
