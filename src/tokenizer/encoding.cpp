#include "tokenizer/encoding.h"

#include "util/diagnostic.h"

#include <algorithm>
#include <stdexcept>

namespace runner {

Truncation truncation_from_name(const std::string& name) {
  if (name == "longest_first") return Truncation::LongestFirst;
  if (name == "only_first") return Truncation::OnlyFirst;
  if (name == "only_second") return Truncation::OnlySecond;
  throw std::invalid_argument("unknown truncation strategy '" + name +
                              "', expected longest_first, only_first or only_second");
}

static void drop_last(std::vector<int32_t>& v, size_t n) { v.resize(v.size() - std::min(n, v.size())); }

static InputError cannot_fit(const char* strategy, size_t keep_len, size_t other_len, size_t n,
                             int max_length) {
  return InputError(make_error(
      {}, "data.truncation",
      "truncation '" + std::string(strategy) + "' must remove " + std::to_string(n) +
          " tokens to reach max_length " + std::to_string(max_length) +
          ", but the sequence it may cut has only " + std::to_string(other_len) +
          " (the other has " + std::to_string(keep_len) + ")",
      "use truncation = \"longest_first\" or a larger max_length"));
}

// only_first and only_second cut n tokens from their side, or refuse when that
// side cannot give them; false for longest_first, which each caller does its way.
static bool cut_named_side(std::vector<int32_t>& a, std::vector<int32_t>& b, size_t n, const EncodeOptions& opts) {
  if (opts.truncation == Truncation::OnlyFirst) {
    if (a.size() <= n) throw cannot_fit("only_first", b.size(), a.size(), n, opts.max_length);
    drop_last(a, n);
    return true;
  }
  if (opts.truncation == Truncation::OnlySecond) {
    if (b.size() <= n) throw cannot_fit("only_second", a.size(), b.size(), n, opts.max_length);
    drop_last(b, n);
    return true;
  }
  return false;
}

void truncate_pair(std::vector<int32_t>& a, std::vector<int32_t>* b, const EncodeOptions& opts) {
  const size_t specials = b ? 3 : 2;
  const size_t total = a.size() + (b ? b->size() : 0) + specials;
  if (total <= static_cast<size_t>(opts.max_length)) return;
  const size_t n = total - static_cast<size_t>(opts.max_length);
  if (!b) {
    drop_last(a, n);
    return;
  }
  if (cut_named_side(a, *b, n, opts)) return;
  // longest_first as Hugging Face 4.40: cut the difference from the longer side,
  // then split the rest evenly; on a tie `b` loses the odd token.
  const size_t la = a.size(), lb = b->size();
  const size_t first = std::min(la > lb ? la - lb : lb - la, n);
  const size_t second = n - first;
  if (la > lb) {
    drop_last(a, first + second / 2);
    drop_last(*b, second - second / 2);
  } else {
    drop_last(a, second / 2);
    drop_last(*b, first + second - second / 2);
  }
}

void truncate_like_tokenizers(std::vector<int32_t>& a, std::vector<int32_t>* b, const EncodeOptions& opts,
                              size_t added) {
  const size_t target = static_cast<size_t>(std::max(opts.max_length, 0)) - std::min<size_t>(added, opts.max_length);
  const size_t total = a.size() + (b ? b->size() : 0);
  if (total <= target) return;
  const size_t n = total - target;
  if (!b) {
    a.resize(target);
    return;
  }
  if (cut_named_side(a, *b, n, opts)) return;
  // longest_first as tokenizers does it: the shorter side keeps all it has when
  // the longer one can take the whole cut; else both get half the room and the
  // longer (b on a tie) the odd token.
  const bool swap = a.size() > b->size();
  size_t n1 = swap ? b->size() : a.size(), n2 = swap ? a.size() : b->size();
  n2 = n1 > target ? n1 : std::max(n1, target - n1);
  if (n1 + n2 > target) {
    n1 = target / 2;
    n2 = n1 + target % 2;
  }
  if (swap) std::swap(n1, n2);
  a.resize(std::min(a.size(), n1));
  b->resize(std::min(b->size(), n2));
}

Encoding assemble(const SpecialTokenIds& special, const std::vector<int32_t>& a,
                  const std::vector<int32_t>* b) {
  Encoding e;
  const size_t len = a.size() + 2 + (b ? b->size() + 1 : 0);
  e.input_ids.reserve(len);
  e.input_ids.push_back(special.cls);
  e.input_ids.insert(e.input_ids.end(), a.begin(), a.end());
  e.input_ids.push_back(special.sep);
  e.token_type_ids.assign(e.input_ids.size(), 0);
  if (b) {
    e.input_ids.insert(e.input_ids.end(), b->begin(), b->end());
    e.input_ids.push_back(special.sep);
    e.token_type_ids.resize(e.input_ids.size(), 1);
  }
  return e;
}

Encoding Tokenizer::encode_texts(std::string_view text_a, std::optional<std::string_view> text_b,
                                 const EncodeOptions& opts) const {
  std::vector<int32_t> a, b;
  tokenize(text_a, a);
  if (text_b) tokenize(*text_b, b);
  std::vector<int32_t>* bp = text_b ? &b : nullptr;
  truncate_pair(a, bp, opts);
  return assemble(special_ids(), a, bp);
}

Encoding Tokenizer::encode_ids(std::vector<int32_t> ids, const EncodeOptions& opts,
                               std::vector<int32_t>& positions) const {
  truncate_pair(ids, nullptr, opts);
  positions.assign(ids.size() + 2, -1);
  for (size_t i = 0; i < ids.size(); ++i) positions[i + 1] = static_cast<int32_t>(i);
  return assemble(special_ids(), ids, nullptr);
}

Encoding encode(const Tokenizer& tokenizer, std::string_view text_a,
                std::optional<std::string_view> text_b, const EncodeOptions& opts) {
  return tokenizer.encode_texts(text_a, text_b, opts);
}

}  // namespace runner
