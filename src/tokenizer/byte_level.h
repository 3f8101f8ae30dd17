// GPT-2's byte-level pre-tokenization, as RoBERTa's and ModernBERT's
// tokenizer.json use it: the GPT-2 regular expression split (written out by
// hand, with Oniguruma's matching order) and the byte-to-unicode map that lets
// BPE see every byte as a printable character.
#pragma once

#include "tokenizer/json_part.h"
#include "tokenizer/pipeline_parts.h"

#include <functional>

namespace runner::hf {

// The spans [begin, end) of `text` that the pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// matches one after another; they cover the whole text.
void gpt2_split(std::string_view text, const std::function<void(size_t, size_t)>& span);

// Appends the byte-level form of `bytes`: each byte as its GPT-2 code point, in UTF-8.
void append_byte_level(std::string& out, std::string_view bytes);

std::unique_ptr<PreTokenizer> build_byte_level(const JsonPart& part);

// The pattern above as a tokenizer.json writes it in a Split pre-tokenizer.
extern const char* const kGpt2Pattern;
// Split(kGpt2Pattern, Isolated): the spans above as pieces, bytes unchanged.
std::unique_ptr<PreTokenizer> gpt2_pattern_split();

}  // namespace runner::hf
