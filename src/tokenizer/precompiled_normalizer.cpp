#include "tokenizer/precompiled_normalizer.h"

#include "tokenizer/normalizers.h"
#include "tokenizer/unicode_text.h"

#include <utf8proc.h>

#include <cstring>

namespace runner::hf {

bool decode_base64(std::string_view text, std::string& out) {
  uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '+') v = 62;
    else if (c == '/') v = 63;
    else if (c == '=') break;
    else return false;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xFF));
    }
  }
  return true;
}

namespace {

class Precompiled : public Normalizer {
 public:
  Precompiled(std::vector<uint32_t> units, std::string replacements)
      : units_(std::move(units)), replacements_(std::move(replacements)) {}

  // Each grapheme cluster shorter than 6 bytes is replaced whole when a trie
  // key is a prefix of it; otherwise each character is looked up alone.
  void normalize(std::string& text) const override {
    if (unicode::is_ascii(text) && !ascii_mapped_) return;
    std::string out;
    out.reserve(text.size());
    for (size_t begin = 0; begin < text.size();) {
      size_t end = grapheme_end(text, begin);
      std::string_view grapheme(text.data() + begin, end - begin);
      std::string_view norm;
      if (grapheme.size() < 6 && transform(grapheme, norm)) {
        out.append(norm);
      } else {
        for (size_t i = 0; i < grapheme.size();) {
          size_t at = i;
          unicode::next_code_point(grapheme, i);
          std::string_view ch = grapheme.substr(at, i - at);
          out.append(transform(ch, norm) ? norm : ch);
        }
      }
      begin = end;
      // A charsmap's replacement may be of any length: checked as it grows.
      if (out.size() > 4 * text.size() + 64) require_bounded_growth(text.size(), out.size(), "Precompiled");
    }
    text = std::move(out);
  }

  // Whether any trie key starts with an ASCII byte (then ASCII text is no fast path).
  void find_ascii_mapped() {
    if (units_.empty()) return;
    for (size_t c = 1; c < 128; ++c) {
      size_t node = offset(units_[0]) ^ c;
      if (node < units_.size() && label(units_[node]) == c) ascii_mapped_ = true;
    }
  }

 private:
  static bool has_leaf(uint32_t unit) { return (unit >> 8) & 1; }
  static uint32_t value(uint32_t unit) { return unit & ((1U << 31) - 1); }
  static uint32_t label(uint32_t unit) { return unit & ((1U << 31) | 0xFF); }
  static size_t offset(uint32_t unit) { return (unit >> 10) << ((unit & (1U << 9)) >> 6); }

  // The replacement of the shortest trie key that is a prefix of `key`.
  bool transform(std::string_view key, std::string_view& norm) const {
    size_t node = 0;
    if (units_.empty()) return false;
    node ^= offset(units_[0]);
    for (unsigned char c : key) {
      if (c == 0) return false;
      node ^= c;
      if (node >= units_.size()) return false;
      uint32_t unit = units_[node];
      if (label(unit) != c) return false;
      node ^= offset(unit);
      if (node >= units_.size()) return false;
      if (has_leaf(unit)) {
        size_t at = value(units_[node]);
        if (at >= replacements_.size()) return false;
        size_t stop = replacements_.find('\0', at);
        norm = std::string_view(replacements_).substr(at, (stop == std::string::npos ? replacements_.size() : stop) - at);
        return true;
      }
    }
    return false;
  }

  static size_t grapheme_end(const std::string& text, size_t begin) {
    size_t i = begin;
    char32_t prev = unicode::next_code_point(text, i);
    utf8proc_int32_t state = 0;
    while (i < text.size()) {
      size_t at = i;
      char32_t cp = unicode::next_code_point(text, i);
      if (utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(prev), static_cast<utf8proc_int32_t>(cp),
                                           &state))
        return at;
      prev = cp;
    }
    return text.size();
  }

  std::vector<uint32_t> units_;
  std::string replacements_;
  bool ascii_mapped_ = false;
};

}  // namespace

std::unique_ptr<Normalizer> build_precompiled(const JsonPart& part) {
  std::string blob;
  if (!decode_base64(part.str("precompiled_charsmap"), blob) || blob.size() < 4)
    part.fail("precompiled_charsmap", "expected the base64 of a SentencePiece charsmap");
  uint32_t trie_bytes = 0;
  std::memcpy(&trie_bytes, blob.data(), 4);  // little-endian, as x86 and ARM read it
  if (trie_bytes % 4 != 0 || trie_bytes > blob.size() - 4)
    part.fail("precompiled_charsmap", "the charsmap's trie size does not fit the data");
  std::vector<uint32_t> units(trie_bytes / 4);
  if (trie_bytes > 0) std::memcpy(units.data(), blob.data() + 4, trie_bytes);  // empty: data() may be null
  auto p = std::make_unique<Precompiled>(std::move(units), blob.substr(4 + trie_bytes));
  p->find_ascii_mapped();
  return p;
}

}  // namespace runner::hf
