// The Unigram model of a tokenizer.json (SentencePiece's, as DeBERTa-v3 and
// XLM-R use it): the Viterbi path over the pieces' log-probabilities, unknown
// characters fused into one unk, and byte_fallback to <0xNN> pieces.
#pragma once

#include "tokenizer/json_part.h"
#include "tokenizer/pipeline_parts.h"

namespace runner::hf {

std::unique_ptr<Model> build_unigram(const JsonPart& part);

}  // namespace runner::hf
