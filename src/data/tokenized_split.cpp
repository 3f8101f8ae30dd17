#include "data/tokenized_split.h"

#include "data/qa_dataset.h"

#include <algorithm>

namespace runner {

std::vector<int64_t> TokenizedSplit::lengths() const {
  std::vector<int64_t> out(size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = length(i);
  return out;
}

void TokenizedSplit::add(const Encoding& e, int64_t label, int64_t example_id) {
  input_ids.insert(input_ids.end(), e.input_ids.begin(), e.input_ids.end());
  for (int32_t t : e.token_type_ids) token_type_ids.push_back(static_cast<uint8_t>(t));
  offsets.push_back(static_cast<int64_t>(input_ids.size()));
  labels.push_back(label);
  example_ids.push_back(example_id);
}

namespace {

// Sentence i keeps its place in the file as its example id.
TokenizedSplit tokenize_sentences(const SplitData& split, const Tokenizer& tokenizer, const EncodeOptions& options) {
  AlignOptions align = split.labelling->align;
  align.max_length = options.max_length;
  TokenizedSplit out;
  out.offsets.reserve(split.sentences.size() + 1);
  for (size_t i = 0; i < split.sentences.size(); ++i) {
    bool truncated = false;
    AlignedSentence s = align_sentence(tokenizer, split.sentences[i], split.labelling->labels, align, split.file,
                                       truncated);
    out.add(s.encoding, 0, static_cast<int64_t>(i));
    out.token_labels.insert(out.token_labels.end(), s.labels.begin(), s.labels.end());
    out.truncated += truncated ? 1 : 0;
  }
  return out;
}

// Each window of each question, as run_qa.py's prepare_train_features makes it,
// without its padding (the collator pads again); its example id is its place
// among the windows, and its two targets its answer's start and end token.
TokenizedSplit tokenize_questions(const SplitData& split, const Tokenizer& tokenizer, const EncodeOptions& options) {
  TokenizedSplit out;
  out.target_width = 2;
  const std::vector<QaFeature> windows =
      qa_features(tokenizer, split.questions, qa_feature_options(*split.qa, options.max_length), split.file);
  out.offsets.reserve(windows.size() + 1);
  for (size_t i = 0; i < windows.size(); ++i) {
    const QaFeature& w = windows[i];
    const auto real = static_cast<std::ptrdiff_t>(std::count(w.attention_mask.begin(), w.attention_mask.end(), 1));
    Encoding e;
    e.input_ids.assign(w.encoding.input_ids.begin(), w.encoding.input_ids.begin() + real);
    e.token_type_ids.assign(w.encoding.token_type_ids.begin(), w.encoding.token_type_ids.begin() + real);
    out.add(e, 0, static_cast<int64_t>(i));
    out.targets.push_back(static_cast<float>(w.start_position));
    out.targets.push_back(static_cast<float>(w.end_position));
  }
  return out;
}

}  // namespace

TokenizedSplit tokenize_split(const SplitData& split, const Tokenizer& tokenizer,
                              const EncodeOptions& options) {
  if (split.labelling) return tokenize_sentences(split, tokenizer, options);
  if (split.qa) return tokenize_questions(split, tokenizer, options);
  TokenizedSplit out;
  out.has_labels = split.has_labels;
  out.target_width = split.has_labels ? split.target_width : 0;
  out.offsets.reserve(split.examples.size() + 1);
  for (const Example& ex : split.examples) {
    std::optional<std::string_view> b;
    if (ex.text_b) b = *ex.text_b;
    out.add(encode(tokenizer, ex.text_a, b, options), ex.label, ex.id);
    if (out.target_width > 0) out.targets.insert(out.targets.end(), ex.targets.begin(), ex.targets.end());
  }
  return out;
}

}  // namespace runner
