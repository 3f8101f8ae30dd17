// Questions and contexts into model inputs as Transformers' run_qa.py makes
// them (prepare_train_features and prepare_validation_features): the question
// (leading whitespace stripped) first, the context second, cut only in the
// context; a context too long for max_length gives several windows, each
// sharing doc_stride tokens with the one before (the tokenizers library's
// overflow). Windows are padded to max_length.
//
// A training window's start/end positions are the context tokens that hold
// the first answer's first and last characters, or the CLS position when the
// window does not hold the whole answer (or there is none). A validation
// window keeps the character offsets of its context tokens only.
#pragma once

#include "data/squad_rows.h"
#include "tokenizer/encoding.h"
#include "tokenizer/token_offsets.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace runner {

struct QaFeatureOptions {
  int max_length = 384;  // run_qa.py's max_seq_length
  int doc_stride = 128;
  // The tokenizer's padding side: on the left, the context goes first and
  // the question is cut instead (run_qa.py's pad_on_right = False).
  bool pad_on_right = true;
};

struct QaFeature {
  size_t example = 0;            // index into the examples
  Encoding encoding;             // input_ids and token_type_ids, padded
  std::vector<int32_t> attention_mask;
  std::vector<int8_t> sequence_ids;  // 0 question, 1 context (in input order), -1 special or padding
  // Offsets of the context tokens, none elsewhere (the validation features'
  // offset_mapping).
  std::vector<std::optional<CharSpan>> offsets;
  int32_t start_position = 0, end_position = 0;
};

// Throws InputError naming the example's place when its question leaves no
// room for the context, or when doc_stride is not below the room left.
std::vector<QaFeature> qa_features(const Tokenizer& tokenizer, const std::vector<QaExample>& examples,
                                   const QaFeatureOptions& options, const std::string& file);

}  // namespace runner
