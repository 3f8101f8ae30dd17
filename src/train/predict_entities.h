// `runner predict` with a token classification (NER) model. Each input line
// is {"text": "..."} ("text_a" is read as "text"), whose words are the runs of
// characters between spaces, tabs and line breaks, or {"tokens": [...]},
// words already split as in a training JSONL; "id" and any other key are
// copied through. Each word's tag is the model's best label at the word's
// first piece, as run_ner.py predicts. The output line adds:
//   "tags"      one per word; null for a word cut off by max_length
//   "entities"  the tags read as seqeval's default (lenient) chunker reads
//               them: each entity's "type", "words" [first, last] (0-based,
//               inclusive), "text", "score" (the mean over its words of their
//               tag's softmax probability) and, for a text, "start" and "end":
//               its [start, end) in the text, counted in code points as
//               Python's str indices (Transformers' pipelines) count them.
#pragma once

#include "model/predict.h"
#include "tokenizer/token_offsets.h"

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace runner {

struct TextWord {
  std::string text;
  CharSpan chars;  // code points
  size_t byte_start = 0, byte_end = 0;
};

// The words of `text`: maximal runs of characters other than ' ', '\t', '\n',
// '\r', '\v' and '\f', with their offsets.
std::vector<TextWord> split_text_words(std::string_view text);

struct PredictedEntity {
  std::string type;
  size_t first = 0, last = 0;  // word indices, inclusive
};

// The entities of one sentence's tags, as seqeval's lenient chunker finds
// them (a tag of "" is read as "O").
std::vector<PredictedEntity> sentence_entities(const std::vector<std::string>& tags);

// Returns the exit code: 0, or 2 for bad input (messages go to `err`).
int run_entity_predict(const PredictCommandOptions& options, std::istream& in, std::ostream& out,
                       std::ostream& err);

}  // namespace runner
