// SentencePiece's precompiled normalization (the "Precompiled" normalizer of
// DeBERTa-v3's and XLM-R's tokenizer.json): a darts-clone double-array trie
// of source strings and a blob of their replacements, applied per grapheme
// cluster as Hugging Face tokenizers applies it.
#pragma once

#include "tokenizer/json_part.h"
#include "tokenizer/pipeline_parts.h"

namespace runner::hf {

std::unique_ptr<Normalizer> build_precompiled(const JsonPart& part);

// Standard base64 (with padding) to bytes; false on a character outside it.
bool decode_base64(std::string_view text, std::string& out);

}  // namespace runner::hf
