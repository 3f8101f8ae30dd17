// The WordPiece model of a tokenizer.json inside the general pipeline (for
// files whose normalizer or pre-tokenizer is not BERT's, which wordpiece.h
// covers): greedy longest-match-first over the vocabulary.
#pragma once

#include "tokenizer/json_part.h"
#include "tokenizer/pipeline_parts.h"

namespace runner::hf {

std::unique_ptr<Model> build_wordpiece_model(const JsonPart& part);

}  // namespace runner::hf
