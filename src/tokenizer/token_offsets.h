// Character offsets of tokens, as `tokenizers` gives them with
// return_offsets_mapping: for each id, the [start, end) of the original text
// it came from, counted in code points (Python str indices).
//
// The encode paths keep no alignment, so the offsets are found afterwards:
// the text is normalized one character (or a short run) at a time, each piece
// of the result aligned to the characters it came from as `tokenizers` aligns
// them, and each token's text is then matched against that stream in order.
// Nothing here runs unless offsets are asked for.
#pragma once

#include "tokenizer/tokenizer.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace runner {

struct CharSpan {
  int32_t start = 0;
  int32_t end = 0;
  bool operator==(const CharSpan& o) const { return start == o.start && end == o.end; }
};

// The ids tokenizer.tokenize(text) gives, each with its offsets.
struct TokenizedText {
  std::vector<int32_t> ids;
  std::vector<CharSpan> offsets;
};

// Tokenizes `text` (no special tokens) and finds each id's offsets. WordPiece
// (BertTokenizer) and tokenizer.json pipelines (byte-level BPE, Unigram and
// BPE with Metaspace, WordPiece) are supported; any other Tokenizer gets
// (0, 0) for every id.
TokenizedText tokenize_with_offsets(const Tokenizer& tokenizer, std::string_view text);

}  // namespace runner
