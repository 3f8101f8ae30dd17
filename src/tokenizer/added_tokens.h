// A tokenizer.json's added tokens ("added_tokens"): cut out of the text before
// the pipeline runs, as Hugging Face tokenizers' AddedVocabulary does: those
// with normalized = false from the raw text, the others from each normalized
// piece; leftmost-longest matches, with single_word, lstrip and rstrip.
#pragma once

#include "tokenizer/json_part.h"
#include "tokenizer/pipeline_parts.h"

#include <bitset>

namespace runner::hf {

struct AddedToken {
  std::string content;
  int32_t id = -1;
  bool single_word = false, lstrip = false, rstrip = false, normalized = false, special = false;
};

class AddedTokens {
 public:
  explicit AddedTokens(std::vector<AddedToken> tokens);
  // The match sets point into the token list: moving keeps them valid, copying would not.
  AddedTokens(AddedTokens&&) = default;
  AddedTokens(const AddedTokens&) = delete;
  AddedTokens& operator=(const AddedTokens&) = delete;

  // Pieces of `text` (non-empty ones only): added tokens matched in the raw
  // text, and the text between them, normalized by `normalize` and then cut at
  // the normalized added tokens.
  template <class Normalize>
  void split(std::string_view text, Normalize normalize, std::vector<Piece>& out) const {
    thread_local std::vector<Piece> raw;
    raw.clear();
    cut(text, raw_, true, raw);
    for (Piece& p : raw) {
      if (p.added_id >= 0) {
        out.push_back(std::move(p));
        continue;
      }
      normalize(p.text);
      size_t first = out.size();
      cut(p.text, normalized_, false, out);
      if (first < out.size() && out[first].added_id < 0) out[first].at_start = p.at_start;
    }
  }

  const std::vector<AddedToken>& tokens() const { return all_; }
  int32_t id_of(std::string_view content) const;  // -1 when not an added token

 private:
  struct Set {
    std::vector<const AddedToken*> tokens;  // longest first
    std::bitset<256> first_bytes;
  };
  // Appends the pieces of `text` cut at the matches of `set`; at_start marks the
  // first piece when `from_start`.
  void cut(std::string_view text, const Set& set, bool from_start, std::vector<Piece>& out) const;
  const AddedToken* match_at(std::string_view text, size_t pos, const Set& set) const;

  std::vector<AddedToken> all_;
  Set raw_, normalized_;
};

AddedTokens read_added_tokens(const JsonPart& list);

}  // namespace runner::hf
