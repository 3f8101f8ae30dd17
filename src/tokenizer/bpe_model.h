// The BPE model of a tokenizer.json: a vocabulary and ranked merges, with
// continuing_subword_prefix / end_of_word_suffix, unk (fused or not),
// byte_fallback (<0xNN> pieces) and ignore_merges, as Hugging Face tokenizers.
#pragma once

#include "tokenizer/json_part.h"
#include "tokenizer/pipeline_parts.h"

namespace runner::hf {

std::unique_ptr<Model> build_bpe(const JsonPart& part);

// token -> id from model.vocab (an object), checked: ids >= 0 and each used once.
std::vector<std::string> read_vocab_object(const JsonPart& vocab);

}  // namespace runner::hf
