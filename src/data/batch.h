// A collated batch as plain int64 vectors ([batch x seq_len], row-major); the
// trainer turns them into tensors. Padding follows DataCollatorWithPadding:
// right padding with the pad id, token type 0 and attention mask 0.
#pragma once

#include "data/sampler.h"
#include "data/tokenized_split.h"

#include <cstdint>
#include <vector>

namespace runner {

struct Batch {
  int64_t batch_size = 0;
  int64_t seq_len = 0;
  std::vector<int64_t> input_ids;       // batch_size * seq_len
  std::vector<int64_t> token_type_ids;  // batch_size * seq_len
  std::vector<int64_t> attention_mask;  // batch_size * seq_len
  std::vector<int64_t> labels;          // batch_size; -1 when the split has none
  // Token classification: batch_size * seq_len label ids, -100 (ignored) at
  // padding as DataCollatorForTokenClassification pads; empty otherwise.
  std::vector<int64_t> token_labels;
  std::vector<float> targets;           // batch_size * target_width: regression, multi-label
  int64_t target_width = 0;             // 0: the labels are class ids
  std::vector<int64_t> example_ids;     // batch_size; data row in the file
  std::vector<uint8_t> is_padding;      // batch_size; 1 = sampler padding, drop in evaluation
  int64_t real_tokens() const;          // sum of the attention mask
};

struct PaddingOptions {
  bool to_max_length = false;  // data.padding = "max_length"
  int64_t max_length = 128;
  int64_t pad_to_multiple_of = 0;  // with dynamic padding; 0 = off
  int64_t pad_id = 0;
};

Batch collate(const TokenizedSplit& split, const std::vector<SampledIndex>& rows,
              const PaddingOptions& padding);

}  // namespace runner
