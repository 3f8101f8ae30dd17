// Writing a model as a Hugging Face folder that transformers' from_pretrained
// loads unchanged: config.json, model.safetensors and the tokenizer files.
#pragma once

#include "model/model.h"
#include "model/tokenizer_files.h"

#include <string>
#include <vector>

namespace runner {

// save_pretrained(model, dir), then copies the tokenizer files of `tokenizer`
// (a folder or a file; empty: none). Returns the names copied. Throws
// InputError if a folder has none of them.
std::vector<std::string> export_hf_folder(TaskModel& model, const std::string& dir,
                                          const std::string& tokenizer);

}  // namespace runner
