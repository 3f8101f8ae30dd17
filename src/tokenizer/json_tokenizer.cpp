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

Encoding JsonTokenizer::encode_ids(std::vector<int32_t> ids, const EncodeOptions& opts,
                                   std::vector<int32_t>& positions) const {
  truncate_like_tokenizers(ids, nullptr, opts, parts_.post_processor->added_tokens(false));
  // Every post-processor copies the sequence's ids through unchanged, so
  // markers -1, -2, ... in their place show where each one lands.
  std::vector<int32_t> markers(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) markers[i] = -static_cast<int32_t>(i) - 1;
  Encoding e;
  parts_.post_processor->process(markers, nullptr, e.input_ids, e.token_type_ids);
  positions.assign(e.input_ids.size(), -1);
  for (size_t k = 0; k < e.input_ids.size(); ++k) {
    if (e.input_ids[k] >= 0) continue;
    positions[k] = -e.input_ids[k] - 1;
    e.input_ids[k] = ids[static_cast<size_t>(positions[k])];
  }
  return e;
}

int32_t JsonTokenizer::largest_type_id(bool pair) const { return parts_.post_processor->largest_type_id(pair); }

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
