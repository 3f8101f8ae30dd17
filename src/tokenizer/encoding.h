// Model inputs from one or two texts: [CLS] A [SEP] (B [SEP]), token type ids
// and Hugging Face's truncation strategies.
#pragma once

#include "tokenizer/tokenizer.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace runner {

enum class Truncation { LongestFirst, OnlyFirst, OnlySecond };
// "longest_first", "only_first", "only_second"; throws std::invalid_argument otherwise.
Truncation truncation_from_name(const std::string& name);

struct EncodeOptions {
  int max_length = 128;  // special tokens included
  Truncation truncation = Truncation::LongestFirst;
};

struct Encoding {
  std::vector<int32_t> input_ids;
  std::vector<int32_t> token_type_ids;
};

// Cuts `a` and `b` (word pieces, no specials) so that they fit max_length with
// the specials. b == nullptr: a single sentence, whatever the strategy.
// Throws InputError when only_first/only_second cannot make the pair fit.
void truncate_pair(std::vector<int32_t>& a, std::vector<int32_t>* b, const EncodeOptions& opts);

// The same cut as Hugging Face tokenizers (Rust) makes it, which differs from
// transformers' Python one in who keeps the odd token; `added` is how many
// special tokens the post-processor adds.
void truncate_like_tokenizers(std::vector<int32_t>& a, std::vector<int32_t>* b, const EncodeOptions& opts,
                              size_t added);

// Adds the specials and token type ids to already truncated pieces.
Encoding assemble(const SpecialTokenIds& special, const std::vector<int32_t>& a,
                  const std::vector<int32_t>* b);

// tokenizer(text_a, text_b, truncation=..., max_length=...) of Hugging Face.
Encoding encode(const Tokenizer& tokenizer, std::string_view text_a,
                std::optional<std::string_view> text_b, const EncodeOptions& opts);

}  // namespace runner
