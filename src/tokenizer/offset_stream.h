// The normalized text of token_offsets.cpp, one unit per normalized code
// point, each aligned to the original characters it came from.
#pragma once

#include "tokenizer/pipeline_parts.h"
#include "tokenizer/token_offsets.h"
#include "tokenizer/wordpiece.h"

#include <string>
#include <string_view>
#include <vector>

namespace runner::offsets {

struct Unit {
  std::string bytes;      // UTF-8 of one normalized code point; empty: the character vanished
  CharSpan span;          // the original characters it stands for
  bool marker = false;    // a "▁" the normalizer wrote (not a space of the text)
  bool whitespace = false;
};

// BertNormalizer, one character at a time: cleaning, whitespace to ' ',
// lower case and accents stripped as the settings say.
std::vector<Unit> bert_units(std::string_view text, const WordPieceSettings& settings);

// A tokenizer.json normalizer (null: none). Each run of one to three
// characters is normalized alone and matched against the whole text's
// normalization; when a run of n characters becomes m, the i-th new one is
// aligned as `tokenizers` aligns it (offset_stream.cpp's push_units says how).
std::vector<Unit> normalized_units(std::string_view text, const hf::Normalizer* normalizer);

// The code point count and each code point's UTF-8, in order.
std::vector<std::string> utf8_characters(std::string_view text);

}  // namespace runner::offsets
