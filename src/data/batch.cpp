#include "data/batch.h"

#include "data/token_label_alignment.h"

#include <algorithm>
#include <numeric>

namespace runner {

int64_t Batch::real_tokens() const {
  return std::accumulate(attention_mask.begin(), attention_mask.end(), int64_t{0});
}

static int64_t padded_length(const TokenizedSplit& split, const std::vector<SampledIndex>& rows,
                             const PaddingOptions& p) {
  int64_t longest = 0;
  for (const auto& r : rows) longest = std::max(longest, split.length(static_cast<size_t>(r.index)));
  if (p.to_max_length) return std::max(longest, p.max_length);
  if (p.pad_to_multiple_of > 0)
    longest = (longest + p.pad_to_multiple_of - 1) / p.pad_to_multiple_of * p.pad_to_multiple_of;
  return longest;
}

Batch collate(const TokenizedSplit& split, const std::vector<SampledIndex>& rows,
              const PaddingOptions& padding) {
  Batch b;
  b.batch_size = static_cast<int64_t>(rows.size());
  b.seq_len = padded_length(split, rows, padding);
  const auto cells = static_cast<size_t>(b.batch_size * b.seq_len);
  b.input_ids.assign(cells, padding.pad_id);
  b.token_type_ids.assign(cells, 0);
  b.attention_mask.assign(cells, 0);
  b.target_width = split.target_width;
  if (!split.token_labels.empty()) b.token_labels.assign(cells, kIgnoredLabel);
  for (size_t r = 0; r < rows.size(); ++r) {
    const auto i = static_cast<size_t>(rows[r].index);
    const int64_t begin = split.offsets[i], len = split.length(i);
    const size_t row = r * static_cast<size_t>(b.seq_len);
    for (int64_t t = 0; t < len; ++t) {
      b.input_ids[row + static_cast<size_t>(t)] = split.input_ids[static_cast<size_t>(begin + t)];
      b.token_type_ids[row + static_cast<size_t>(t)] = split.token_type_ids[static_cast<size_t>(begin + t)];
      b.attention_mask[row + static_cast<size_t>(t)] = 1;
      if (!b.token_labels.empty())
        b.token_labels[row + static_cast<size_t>(t)] = split.token_labels[static_cast<size_t>(begin + t)];
    }
    b.labels.push_back(split.labels[i]);
    if (b.target_width > 0)
      b.targets.insert(b.targets.end(), split.targets_of(i), split.targets_of(i) + b.target_width);
    b.example_ids.push_back(split.example_ids[i]);
    b.is_padding.push_back(rows[r].padding ? 1 : 0);
  }
  return b;
}

}  // namespace runner
