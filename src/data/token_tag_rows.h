// Reading token classification (NER) data: one tag per word. Two formats:
//
//   * CoNLL: one word a line, whitespace-separated columns, a blank line ends
//     a sentence. `-DOCSTART-` lines are document markers, not words, and are
//     skipped (with the sentence break after them), as the CoNLL-2003 readers do.
//   * JSONL: one sentence a line, {"tokens": [...], "tags": [...]}.
//
// Every refusal is an InputError naming the file, the line and the fix.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace runner {

struct TaggedSentence {
  std::vector<std::string> words;
  std::vector<std::string> tags;  // one per word
  int line = 0;                   // 1-based line where the sentence starts
};

struct ConllColumns {
  size_t word = 0;
  std::optional<size_t> tag;  // the last column when not set (CoNLL-2003's NER tag)
};

struct JsonlTagKeys {
  std::string words = "tokens";
  std::string tags = "tags";
};

// What the tags must be. `labels` empty: any tag is taken.
struct TagRules {
  std::vector<std::string> labels;
};

std::vector<TaggedSentence> read_conll(const std::string& path, const ConllColumns& columns,
                                       const TagRules& rules);
std::vector<TaggedSentence> read_tag_jsonl(const std::string& path, const JsonlTagKeys& keys,
                                           const TagRules& rules);

// The same from text already in memory; `file` names it in errors.
std::vector<TaggedSentence> parse_conll(std::string_view text, const std::string& file,
                                        const ConllColumns& columns, const TagRules& rules);
std::vector<TaggedSentence> parse_tag_jsonl(std::string_view text, const std::string& file,
                                            const JsonlTagKeys& keys, const TagRules& rules);

}  // namespace runner
