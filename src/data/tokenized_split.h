// A split after tokenization: every example's ids stored back to back, plus
// labels and example ids. Compact, so the token cache can write it as is.
#pragma once

#include "data/dataset.h"
#include "tokenizer/encoding.h"
#include "tokenizer/tokenizer.h"

#include <cstdint>
#include <vector>

namespace runner {

struct TokenizedSplit {
  std::vector<int64_t> offsets{0};     // example i is [offsets[i], offsets[i+1])
  std::vector<int32_t> input_ids;
  std::vector<uint8_t> token_type_ids;
  std::vector<int64_t> labels;         // -1 when the split has no labels; 0 for token classification
  // Token classification: a label id, or kIgnoredLabel (-100), for each of
  // input_ids; empty for whole-sequence tasks.
  std::vector<int32_t> token_labels;
  int64_t truncated = 0;  // token classification: sentences cut at max_length
  // Regression and multi-label: target_width floats per example, example
  // after example (DatasetInfo's target_width); empty for class ids. Question
  // answering: each window's answer start and end token (target_width 2).
  std::vector<float> targets;
  int64_t target_width = 0;
  std::vector<int64_t> example_ids;    // data row in the file
  bool has_labels = true;

  size_t size() const { return labels.size(); }
  int64_t length(size_t i) const { return offsets[i + 1] - offsets[i]; }
  std::vector<int64_t> lengths() const;
  void add(const Encoding& e, int64_t label, int64_t example_id);
  // The float targets of example i (target_width of them).
  const float* targets_of(size_t i) const { return targets.data() + i * static_cast<size_t>(target_width); }
};

// Encodes every example of `split` ([CLS] a [SEP] (b [SEP]), truncated), or
// its tagged sentences with their sub-token labels (data/token_label_alignment.h).
TokenizedSplit tokenize_split(const SplitData& split, const Tokenizer& tokenizer,
                              const EncodeOptions& options);

}  // namespace runner
