// The registry of tokenizer.json parts this runner implements, filled from one
// explicit list per kind (part_registry.cpp). A part not in it is refused by
// name, with its place in the file and the supported names.
#pragma once

#include "tokenizer/json_part.h"
#include "tokenizer/pipeline_parts.h"

namespace runner::hf {

std::unique_ptr<Normalizer> build_normalizer(const JsonPart& part);
std::unique_ptr<PreTokenizer> build_pre_tokenizer(const JsonPart& part);
std::unique_ptr<Model> build_model(const JsonPart& part);
std::unique_ptr<PostProcessor> build_post_processor(const JsonPart& part);

// The implemented type names of one kind: "normalizer", "pre_tokenizer",
// "model" or "post_processor".
std::vector<std::string> supported_parts(const std::string& kind);

}  // namespace runner::hf
