// The interfaces of a Hugging Face tokenizer.json pipeline's parts, as the
// `tokenizers` library runs them: added tokens are cut out of the raw text,
// each remaining piece is normalized, pre-tokenized into words, and each word
// becomes ids by the model; the post-processor then adds the special tokens
// and type ids. Only ids matter here, so no part tracks offsets.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace runner::hf {

// A piece of text on its way through the pipeline, or an added token's id.
struct Piece {
  std::string text;
  int32_t added_id = -1;  // >= 0: an added token, left alone by every part
  bool at_start = false;  // begins at byte 0 of the original text
};

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void normalize(std::string& text) const = 0;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Splits (and may rewrite) every text piece in place; empty pieces are dropped
  // by the caller afterwards.
  virtual void split(std::vector<Piece>& pieces) const = 0;
};

class Model {
 public:
  virtual ~Model() = default;
  // Appends the ids of one pre-tokenized word.
  virtual void tokenize(std::string_view word, std::vector<int32_t>& out) const = 0;
  virtual int32_t token_to_id(std::string_view token) const = 0;  // -1 when absent
  virtual std::string id_to_token(int32_t id) const = 0;           // "" when absent
  virtual size_t vocab_size() const = 0;
};

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  // How many special tokens it adds to one sequence or to a pair.
  virtual size_t added_tokens(bool pair) const = 0;
  // Adds the special tokens and type ids to already truncated sequences.
  virtual void process(const std::vector<int32_t>& a, const std::vector<int32_t>* b,
                       std::vector<int32_t>& ids, std::vector<int32_t>& type_ids) const = 0;
  // Every id it adds (checked against the vocabulary when the tokenizer loads).
  virtual std::vector<int32_t> special_ids() const { return {}; }
  // The largest token type id it gives one sequence or a pair.
  virtual int32_t largest_type_id(bool pair) const = 0;
};

// Calls `fn(piece, out)` for each text piece, which appends the pieces it
// becomes to `out`; added tokens stay as they are, in order. The first new
// piece of an at_start piece keeps the flag.
template <class Fn>
void split_each(std::vector<Piece>& pieces, Fn fn) {
  std::vector<Piece> out;
  out.reserve(pieces.size() * 2);
  for (Piece& p : pieces) {
    if (p.added_id >= 0) {
      out.push_back(std::move(p));
      continue;
    }
    const bool at_start = p.at_start;
    size_t first = out.size();
    fn(p, out);
    for (size_t i = first; i < out.size(); ++i) out[i].at_start = at_start && i == first;
  }
  pieces = std::move(out);
}

}  // namespace runner::hf
