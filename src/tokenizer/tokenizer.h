// The tokenizer interface the data pipeline uses. A tokenizer turns one text
// into ids (no special tokens); encode_texts adds the special tokens,
// truncation and token type ids. Implementations must be safe to call from
// several threads at once.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace runner {

struct Encoding;
struct EncodeOptions;

struct SpecialTokenIds {
  int32_t cls = -1, sep = -1, pad = -1, unk = -1, mask = -1;
};

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;
  // Appends the ids of `text` (valid UTF-8) to `out`.
  virtual void tokenize(std::string_view text, std::vector<int32_t>& out) const = 0;
  virtual const SpecialTokenIds& special_ids() const = 0;
  virtual size_t vocab_size() const = 0;
  virtual std::string id_to_token(int32_t id) const = 0;
  // Identifies the tokenizer's files and settings (a hex digest): two tokenizers
  // with the same fingerprint produce the same ids. Token caches key on it.
  virtual std::string fingerprint() const = 0;
  // The model inputs of one text or a pair: special tokens, truncation and type
  // ids. The default (encoding.cpp) is BERT's [CLS] A [SEP] (B [SEP]) with
  // transformers' truncation; a tokenizer.json pipeline has its post-processor's.
  virtual Encoding encode_texts(std::string_view text_a, std::optional<std::string_view> text_b,
                                const EncodeOptions& opts) const;
  // One sequence given as ids (words tokenized one by one and joined, as
  // tokenizers encodes pre-split words), with encode_texts' truncation and
  // special tokens. `positions` gets, for each output id, its index in `ids`,
  // or -1 for a special token: the word of each id follows from it.
  virtual Encoding encode_ids(std::vector<int32_t> ids, const EncodeOptions& opts,
                              std::vector<int32_t>& positions) const;
  // The largest token type id encode_texts gives one text (pair = false) or a
  // pair, known without tokenizing: validate compares it with the model's
  // token type table. BERT's: 0, and 1 for a pair.
  virtual int32_t largest_type_id(bool pair) const { return pair ? 1 : 0; }
};

// options: the resolved [tokenizer] section.
using TokenizerFactory =
    std::function<std::shared_ptr<const Tokenizer>(const nlohmann::json& options)>;

}  // namespace runner
