// Word tags to sub-token labels, as Transformers' examples/pytorch/token-
// classification/run_ner.py does it: the words go through
// `tokenizer(words, is_split_into_words=True, truncation=True, max_length=N)`
// and tokenize_and_align_labels gives each sub-token its label id, or -100
// (cross-entropy's ignore_index) where no label is learnt.
//
// `tokenizers` encodes pre-split words one by one, each as if it were a whole
// text: every word passes the normalizer and pre-tokenizer alone, so a
// Metaspace tokenizer gives each word its "▁" (prepend_scheme "first"
// included: each word starts its own text). Byte-level BPE needs
// add_prefix_space=True (transformers refuses pre-split words without it for
// RoBERTa): each word then gets a leading space, as it has inside a sentence.
#pragma once

#include "data/token_tag_rows.h"
#include "tokenizer/encoding.h"

#include <cstdint>
#include <string>
#include <vector>

namespace runner {

constexpr int32_t kIgnoredLabel = -100;

enum class SubwordLabels {
  First,  // run_ner's default (label_all_tokens=False): the rest of a word's pieces get -100
  All,    // label_all_tokens=True: every piece; a B-X word's later pieces get I-X
};

struct AlignOptions {
  int max_length = 128;  // special tokens included
  SubwordLabels subwords = SubwordLabels::First;
  // Byte-level BPE: a space before each word that does not start with one, as
  // the ByteLevel pre-tokenizer's add_prefix_space does.
  bool add_prefix_space = false;
  // Refuse a sentence longer than max_length instead of cutting it.
  bool refuse_truncation = false;
};

// How a split's word tags become sub-token labels: the label list (a tag's id
// is its place) and the alignment; max_length is the encoding's, set when the
// split is tokenized.
struct SentenceLabelling {
  std::vector<std::string> labels;
  AlignOptions align;
};

struct AlignedSentence {
  Encoding encoding;            // input_ids and token_type_ids; attends to all of them
  std::vector<int32_t> labels;  // one per input id: a label id or kIgnoredLabel
};

struct AlignedSplit {
  std::vector<AlignedSentence> sentences;
  size_t truncated = 0;  // sentences cut at max_length (their last words lost)
};

// run_ner's b_to_i_label: for each label id, the id of its I- label when it is
// a B- label whose I- label is in the list, else its own id.
std::vector<int32_t> b_to_i_labels(const std::vector<std::string>& labels);

// One sentence; `truncated` is set when it was cut. Throws InputError naming
// `file` and the sentence's line for a tag outside `labels` (labels[i] has id
// i) and, with refuse_truncation, for a sentence that does not fit.
AlignedSentence align_sentence(const Tokenizer& tokenizer, const TaggedSentence& sentence,
                               const std::vector<std::string>& labels, const AlignOptions& options,
                               const std::string& file, bool& truncated);

// Untagged words encoded as align_sentence encodes them (its max_length and
// add_prefix_space), for prediction: `word_at` gives, for each position, the
// word whose first piece it is, or -1 (a later piece, a special token).
struct WordEncoding {
  Encoding encoding;
  std::vector<int32_t> word_at;
  bool truncated = false;  // the last words did not fit
};
WordEncoding encode_words(const Tokenizer& tokenizer, const std::vector<std::string>& words,
                          const AlignOptions& options);

AlignedSplit align_sentences(const Tokenizer& tokenizer, const std::vector<TaggedSentence>& sentences,
                             const std::vector<std::string>& labels, const AlignOptions& options,
                             const std::string& file);

}  // namespace runner
