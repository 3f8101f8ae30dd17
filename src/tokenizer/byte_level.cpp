#include "tokenizer/byte_level.h"

#include "tokenizer/unicode_text.h"

#include <array>

namespace runner::hf {

namespace {

enum CharClass : unsigned char { kLetter, kNumber, kSpace, kOther };

CharClass class_of(char32_t cp) {
  if (unicode::is_white_space(cp)) return kSpace;
  if (unicode::is_letter(cp)) return kLetter;
  if (unicode::is_number(cp)) return kNumber;
  return kOther;
}

struct Char {
  size_t at;  // byte offset
  CharClass cls;
};

// The byte -> UTF-8 string table of GPT-2's bytes_to_unicode(): printable
// Latin-1 bytes stand for themselves, the other 68 bytes take 256, 257, ...
struct ByteMap {
  std::array<std::string, 256> utf8;
  ByteMap() {
    auto printable = [](int b) { return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174); };
    int next = 256;
    for (int b = 0; b < 256; ++b) unicode::append_utf8(utf8[static_cast<size_t>(b)],
                                                       static_cast<char32_t>(printable(b) ? b : next++));
  }
};
const ByteMap kByteMap;

// Length of the contraction ('s 't 're 've 'm 'll 'd) at text[i], or 0.
size_t contraction_at(std::string_view text, size_t i) {
  if (text[i] != '\'' || i + 1 >= text.size()) return 0;
  char c = text[i + 1];
  if (c == 's' || c == 't' || c == 'm' || c == 'd') return 2;
  if (i + 2 < text.size()) {
    std::string_view two = text.substr(i + 1, 2);
    if (two == "re" || two == "ve" || two == "ll") return 3;
  }
  return 0;
}

// The end (a char index) of the run of chars from `k` on that stay in the class
// group: letters, numbers, or neither-space-letter-nor-number.
size_t run_end(const std::vector<Char>& chars, size_t k, CharClass cls) {
  while (k < chars.size() && chars[k].cls == cls) ++k;
  return k;
}

}  // namespace

void gpt2_split(std::string_view text, const std::function<void(size_t, size_t)>& span) {
  thread_local std::vector<Char> chars;
  chars.clear();
  for (size_t i = 0; i < text.size();) {
    size_t at = i;
    chars.push_back({at, class_of(unicode::next_code_point(text, i))});
  }
  const size_t n = chars.size();
  auto byte_at = [&](size_t k) { return k < n ? chars[k].at : text.size(); };
  for (size_t k = 0; k < n;) {
    size_t start = k, end;
    if (size_t len = contraction_at(text, chars[k].at)) {
      end = k + len;  // contractions are ASCII: one char per byte
    } else if (chars[k].cls != kSpace) {
      end = run_end(chars, k + 1, chars[k].cls);
    } else if (text[chars[k].at] == ' ' && k + 1 < n && chars[k + 1].cls != kSpace) {
      end = run_end(chars, k + 2, chars[k + 1].cls);  // " ?X+" with its leading space
    } else {
      size_t ws_end = run_end(chars, k, kSpace);
      // \s+(?!\S) leaves the last space to the word after it; a lone space is \s+.
      end = (ws_end < n && ws_end - k > 1) ? ws_end - 1 : ws_end;
    }
    span(byte_at(start), byte_at(end));
    k = end;
  }
}

void append_byte_level(std::string& out, std::string_view bytes) {
  for (char c : bytes) out += kByteMap.utf8[static_cast<unsigned char>(c)];
}

namespace {

class ByteLevel : public PreTokenizer {
 public:
  ByteLevel(bool add_prefix_space, bool use_regex) : add_prefix_space_(add_prefix_space), use_regex_(use_regex) {}

  void split(std::vector<Piece>& pieces) const override {
    split_each(pieces, [&](Piece& piece, std::vector<Piece>& out) {
      std::string& text = piece.text;
      if (add_prefix_space_ && (text.empty() || text[0] != ' ')) text.insert(0, " ");
      auto add = [&](size_t b, size_t e) {
        Piece p;
        append_byte_level(p.text, std::string_view(text).substr(b, e - b));
        out.push_back(std::move(p));
      };
      if (use_regex_) gpt2_split(text, add);
      else add(0, text.size());
    });
  }

 private:
  bool add_prefix_space_, use_regex_;
};

class Gpt2PatternSplit : public PreTokenizer {
 public:
  void split(std::vector<Piece>& pieces) const override {
    split_each(pieces, [&](Piece& piece, std::vector<Piece>& out) {
      gpt2_split(piece.text, [&](size_t b, size_t e) { out.push_back(Piece{piece.text.substr(b, e - b)}); });
    });
  }
};

}  // namespace

const char* const kGpt2Pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

std::unique_ptr<PreTokenizer> gpt2_pattern_split() { return std::make_unique<Gpt2PatternSplit>(); }

std::unique_ptr<PreTokenizer> build_byte_level(const JsonPart& part) {
  return std::make_unique<ByteLevel>(part.flag("add_prefix_space", true), part.flag("use_regex", true));
}

}  // namespace runner::hf
