#include "data/tokenized_split.h"

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

TokenizedSplit tokenize_split(const SplitData& split, const Tokenizer& tokenizer,
                              const EncodeOptions& options) {
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
