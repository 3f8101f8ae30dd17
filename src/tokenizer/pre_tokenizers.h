// The pre-tokenizers of a tokenizer.json other than ByteLevel (byte_level.h):
// Metaspace, Whitespace, WhitespaceSplit, BertPreTokenizer, Punctuation, Split
// (string patterns) and Sequence, as Hugging Face tokenizers runs them.
#pragma once

#include "tokenizer/json_part.h"
#include "tokenizer/pipeline_parts.h"

namespace runner::hf {

std::unique_ptr<PreTokenizer> build_metaspace(const JsonPart& part);
std::unique_ptr<PreTokenizer> build_whitespace(const JsonPart& part);
std::unique_ptr<PreTokenizer> build_whitespace_split(const JsonPart& part);
std::unique_ptr<PreTokenizer> build_bert_pre_tokenizer(const JsonPart& part);
std::unique_ptr<PreTokenizer> build_punctuation(const JsonPart& part);
std::unique_ptr<PreTokenizer> build_split(const JsonPart& part);
std::unique_ptr<PreTokenizer> build_pre_tokenizer_sequence(const JsonPart& part);

}  // namespace runner::hf
