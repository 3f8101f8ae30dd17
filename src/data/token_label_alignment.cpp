#include "data/token_label_alignment.h"

#include "util/diagnostic.h"

#include <algorithm>
#include <cstdint>

namespace runner {

namespace {

int32_t label_id(const std::vector<std::string>& labels, const std::string& tag, const std::string& file, int line) {
  auto it = std::find(labels.begin(), labels.end(), tag);
  if (it != labels.end()) return static_cast<int32_t>(it - labels.begin());
  std::string names;
  for (const std::string& l : labels) names += (names.empty() ? "" : ", ") + l;
  throw InputError(make_error({file, line, 0, {}}, {}, "tag \"" + tag + "\" is not in the label list (" + names + ")",
                              "correct the tag, or add \"" + tag + "\" to the label list"));
}

// The sub-tokens of every word, joined, and the word each one belongs to
// (BatchEncoding.word_ids() before the special tokens are added).
struct WordPieces {
  std::vector<int32_t> ids;
  std::vector<size_t> word_of;
};

WordPieces tokenize_words(const Tokenizer& tokenizer, const std::vector<std::string>& words, bool add_prefix_space) {
  WordPieces out;
  for (size_t w = 0; w < words.size(); ++w) {
    const bool prefix = add_prefix_space && (words[w].empty() || words[w][0] != ' ');
    tokenizer.tokenize(prefix ? " " + words[w] : words[w], out.ids);
    out.word_of.resize(out.ids.size(), w);
  }
  return out;
}

[[noreturn]] void refuse_long(const std::string& file, int line, size_t pieces, size_t kept, int max_length) {
  throw InputError(make_error(
      {file, line, 0, {}}, {},
      "the sentence is " + std::to_string(pieces) + " sub-tokens long; max_length " + std::to_string(max_length) +
          " keeps " + std::to_string(kept) + " of them with the special tokens",
      "raise max_length, split the sentence, or allow truncation (its last words then go unlabelled)"));
}

// tokenize_and_align_labels: the first piece of a word gets the word's label;
// a later piece -100, or with All the word's label through b_to_i.
std::vector<int32_t> piece_labels(const WordPieces& pieces, const std::vector<int32_t>& positions,
                                  const std::vector<int32_t>& word_labels, const std::vector<int32_t>& b_to_i,
                                  SubwordLabels subwords) {
  std::vector<int32_t> labels;
  labels.reserve(positions.size());
  size_t previous_word = SIZE_MAX;  // a special token resets it, as word_idx None does
  for (int32_t pos : positions) {
    if (pos < 0) {
      labels.push_back(kIgnoredLabel);
      previous_word = SIZE_MAX;
      continue;
    }
    const size_t word = pieces.word_of[static_cast<size_t>(pos)];
    const int32_t label = word_labels[word];
    if (word != previous_word) labels.push_back(label);
    else labels.push_back(subwords == SubwordLabels::All ? b_to_i[static_cast<size_t>(label)] : kIgnoredLabel);
    previous_word = word;
  }
  return labels;
}

}  // namespace

std::vector<int32_t> b_to_i_labels(const std::vector<std::string>& labels) {
  std::vector<int32_t> out;
  for (size_t i = 0; i < labels.size(); ++i) {
    auto it = labels.end();
    if (labels[i].rfind("B-", 0) == 0) it = std::find(labels.begin(), labels.end(), "I-" + labels[i].substr(2));
    out.push_back(it == labels.end() ? static_cast<int32_t>(i) : static_cast<int32_t>(it - labels.begin()));
  }
  return out;
}

AlignedSentence align_sentence(const Tokenizer& tokenizer, const TaggedSentence& sentence,
                               const std::vector<std::string>& labels, const AlignOptions& options,
                               const std::string& file, bool& truncated) {
  std::vector<int32_t> word_labels;
  for (const std::string& tag : sentence.tags) word_labels.push_back(label_id(labels, tag, file, sentence.line));
  const WordPieces pieces = tokenize_words(tokenizer, sentence.words, options.add_prefix_space);
  std::vector<int32_t> positions;
  AlignedSentence out;
  out.encoding = tokenizer.encode_ids(pieces.ids, {options.max_length, Truncation::LongestFirst}, positions);
  const auto kept = static_cast<size_t>(std::count_if(positions.begin(), positions.end(), [](int32_t p) { return p >= 0; }));
  truncated = kept < pieces.ids.size();
  if (truncated && options.refuse_truncation) refuse_long(file, sentence.line, pieces.ids.size(), kept, options.max_length);
  const bool all = options.subwords == SubwordLabels::All;
  out.labels = piece_labels(pieces, positions, word_labels, all ? b_to_i_labels(labels) : std::vector<int32_t>{},
                            options.subwords);
  return out;
}

WordEncoding encode_words(const Tokenizer& tokenizer, const std::vector<std::string>& words,
                          const AlignOptions& options) {
  const WordPieces pieces = tokenize_words(tokenizer, words, options.add_prefix_space);
  std::vector<int32_t> positions;
  WordEncoding out;
  out.encoding = tokenizer.encode_ids(pieces.ids, {options.max_length, Truncation::LongestFirst}, positions);
  out.truncated = static_cast<size_t>(std::count_if(positions.begin(), positions.end(), [](int32_t p) {
                    return p >= 0;
                  })) < pieces.ids.size();
  // Each word's label is its own index: the first piece of a word then holds it.
  std::vector<int32_t> word_index(words.size());
  for (size_t w = 0; w < words.size(); ++w) word_index[w] = static_cast<int32_t>(w);
  out.word_at = piece_labels(pieces, positions, word_index, {}, SubwordLabels::First);
  for (int32_t& w : out.word_at) w = w == kIgnoredLabel ? -1 : w;
  return out;
}

AlignedSplit align_sentences(const Tokenizer& tokenizer, const std::vector<TaggedSentence>& sentences,
                             const std::vector<std::string>& labels, const AlignOptions& options,
                             const std::string& file) {
  AlignedSplit split;
  split.sentences.reserve(sentences.size());
  for (const TaggedSentence& s : sentences) {
    bool truncated = false;
    split.sentences.push_back(align_sentence(tokenizer, s, labels, options, file, truncated));
    split.truncated += truncated ? 1 : 0;
  }
  return split;
}

}  // namespace runner
