// The post-processors of a tokenizer.json: RobertaProcessing, BertProcessing,
// TemplateProcessing, ByteLevel (offsets only: nothing to do for ids) and
// Sequence, with the type ids Hugging Face tokenizers gives.
#pragma once

#include "tokenizer/json_part.h"
#include "tokenizer/pipeline_parts.h"

namespace runner::hf {

std::unique_ptr<PostProcessor> build_roberta_processing(const JsonPart& part);
std::unique_ptr<PostProcessor> build_bert_processing(const JsonPart& part);
std::unique_ptr<PostProcessor> build_template_processing(const JsonPart& part);
std::unique_ptr<PostProcessor> build_byte_level_processing(const JsonPart& part);
std::unique_ptr<PostProcessor> build_post_processor_sequence(const JsonPart& part);
// No post-processor: nothing added, the second sequence's type id is 1.
std::unique_ptr<PostProcessor> no_post_processor();

// The first and last special token a post-processor puts around one sequence
// (-1 when none): what the runner calls cls and sep.
struct Surrounding {
  int32_t first = -1, last = -1;
};
Surrounding surrounding_specials(const PostProcessor& post);

}  // namespace runner::hf
