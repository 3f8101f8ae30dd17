#include "tokenizer/json_tokenizer.h"

#include "tokenizer/encoding.h"

#include <algorithm>

namespace runner {

JsonTokenizer::JsonTokenizer(Parts parts, hf::AddedTokens added, SpecialTokenIds special, std::string fingerprint)
    : parts_(std::move(parts)), added_(std::move(added)), special_(special), fingerprint_(std::move(fingerprint)) {}

void JsonTokenizer::tokenize(std::string_view text, std::vector<int32_t>& out) const {
  thread_local std::vector<hf::Piece> pieces;
  pieces.clear();
  added_.split(text, [&](std::string& s) {
    if (parts_.normalizer) parts_.normalizer->normalize(s);
  }, pieces);
  if (parts_.pre_tokenizer) parts_.pre_tokenizer->split(pieces);
  for (const hf::Piece& p : pieces) {
    if (p.added_id >= 0) out.push_back(p.added_id);
    else if (!p.text.empty()) parts_.model->tokenize(p.text, out);
  }
}

Encoding JsonTokenizer::encode_texts(std::string_view text_a, std::optional<std::string_view> text_b,
                                     const EncodeOptions& opts) const {
  std::vector<int32_t> a, b;
  tokenize(text_a, a);
  if (text_b) tokenize(*text_b, b);
  std::vector<int32_t>* bp = text_b ? &b : nullptr;
  truncate_like_tokenizers(a, bp, opts, parts_.post_processor->added_tokens(bp != nullptr));
  Encoding e;
  parts_.post_processor->process(a, bp, e.input_ids, e.token_type_ids);
  return e;
}

size_t JsonTokenizer::vocab_size() const {
  size_t n = parts_.model->vocab_size();
  for (const hf::AddedToken& t : added_.tokens()) n = std::max(n, static_cast<size_t>(t.id) + 1);
  return n;
}

std::string JsonTokenizer::id_to_token(int32_t id) const {
  for (const hf::AddedToken& t : added_.tokens())
    if (t.id == id) return t.content;
  return parts_.model->id_to_token(id);
}

int32_t JsonTokenizer::token_to_id(std::string_view token) const {
  int32_t id = added_.id_of(token);
  return id >= 0 ? id : parts_.model->token_to_id(token);
}

}  // namespace runner
