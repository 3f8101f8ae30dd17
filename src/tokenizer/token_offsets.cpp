#include "tokenizer/token_offsets.h"

#include "tokenizer/json_tokenizer.h"
#include "tokenizer/offset_stream.h"
#include "tokenizer/unicode_text.h"
#include "tokenizer/wordpiece.h"

#include <algorithm>

namespace runner {
namespace offsets {
namespace {

const std::string kMetaspace = "\xE2\x96\x81";

// How a kind of tokenizer writes a token's text, and what its pre-tokenizer
// drops between tokens.
enum class Surface { WordPiece, ByteLevel, Metaspace };

struct Style {
  Surface surface = Surface::WordPiece;
  bool drops_whitespace = true;  // whitespace between words belongs to no token
};

// GPT-2's byte-to-unicode map, inverted: printable bytes stand for
// themselves, the others for 256 + their rank.
int byte_of_code_point(char32_t cp) {
  auto printable = [](int b) { return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255); };
  if (cp < 256 && printable(static_cast<int>(cp))) return static_cast<int>(cp);
  int rank = 0;
  for (int b = 0; b < 256; ++b) {
    if (printable(b)) continue;
    if (cp == static_cast<char32_t>(256 + rank)) return b;
    ++rank;
  }
  return -1;
}

std::string byte_level_decoded(const std::string& token) {
  std::string out;
  for (size_t i = 0; i < token.size();) {
    const char32_t cp = unicode::next_code_point(token, i);
    const int b = byte_of_code_point(cp);
    if (b >= 0) out.push_back(static_cast<char>(b));
    else unicode::append_utf8(out, cp);
  }
  return out;
}

// "<0xE3>": byte fallback of a sentencepiece model.
bool byte_fallback(const std::string& token, std::string& byte) {
  if (token.size() != 6 || token.compare(0, 3, "<0x") != 0 || token[5] != '>') return false;
  byte.assign(1, static_cast<char>(std::stoi(token.substr(3, 2), nullptr, 16)));
  return true;
}

std::string replaced_metaspace(std::string s) {
  for (size_t at = s.find(kMetaspace); at != std::string::npos; at = s.find(kMetaspace, at + 1)) s.replace(at, 3, " ");
  return s;
}

// Walks the units, token after token.
class Matcher {
 public:
  Matcher(std::vector<Unit> units, Style style) : units_(std::move(units)), style_(style) {}

  CharSpan literal(const std::vector<std::string>& chars, const std::string& content);
  CharSpan word_piece(const std::string& text, bool unknown_word);
  CharSpan byte_level(const std::string& bytes);
  CharSpan metaspace(const std::string& text);

 private:
  bool at_end() const { return u_ >= units_.size(); }
  const Unit& unit() const { return units_[u_]; }
  void skip_empty() {
    while (!at_end() && b_ == 0 && unit().bytes.empty()) ++u_;
  }
  void skip_between_words() {
    for (skip_empty(); !at_end() && b_ == 0 && unit().whitespace && !unit().marker; skip_empty()) ++u_;
  }
  // Consumes `bytes`; `spans` gets the unit of each byte. False on a mismatch.
  bool consume(const std::string& bytes, std::vector<const Unit*>& spans);
  CharSpan here() const {
    if (at_end()) return units_.empty() ? CharSpan{} : CharSpan{units_.back().span.end, units_.back().span.end};
    return unit().span;
  }

  std::vector<Unit> units_;
  Style style_;
  size_t u_ = 0, b_ = 0;
};

CharSpan covering(const std::vector<const Unit*>& spans, CharSpan fallback) {
  if (spans.empty()) return fallback;
  CharSpan s = spans.front()->span;
  for (const Unit* u : spans) {
    s.start = std::min(s.start, u->span.start);
    s.end = std::max(s.end, u->span.end);
  }
  return s;
}

bool Matcher::consume(const std::string& bytes, std::vector<const Unit*>& spans) {
  for (char c : bytes) {
    skip_empty();
    if (at_end() || unit().bytes[b_] != c) return false;
    spans.push_back(&unit());
    if (++b_ == unit().bytes.size()) {
      ++u_;
      b_ = 0;
    }
  }
  return true;
}

// An added token: its content as it stands in the original text.
CharSpan Matcher::literal(const std::vector<std::string>& chars, const std::string& content) {
  skip_between_words();
  const int32_t from = here().start;
  for (int32_t at = from; at < static_cast<int32_t>(chars.size()); ++at) {
    std::string s;
    int32_t end = at;
    while (end < static_cast<int32_t>(chars.size()) && s.size() < content.size()) s += chars[static_cast<size_t>(end++)];
    if (s != content) continue;
    while (!at_end() && unit().span.start < end) {
      ++u_;
      b_ = 0;
    }
    return {at, end};
  }
  return here();
}

CharSpan Matcher::word_piece(const std::string& text, bool unknown_word) {
  skip_between_words();
  std::vector<const Unit*> spans;
  if (unknown_word) {  // the whole word (a punctuation mark is a word of its own)
    while (!at_end() && (spans.empty() || !(unit().whitespace || unit().bytes.empty()))) {
      size_t i = 0;
      const bool punct = unicode::is_bert_punctuation(unicode::next_code_point(unit().bytes, i));
      if (punct && !spans.empty()) break;
      spans.push_back(&unit());
      ++u_;
      b_ = 0;
      if (punct) break;
    }
    return covering(spans, here());
  }
  consume(text, spans);
  return covering(spans, here());
}

// Byte-level BPE with trim_offsets: the token's leading and trailing spaces are left out.
CharSpan Matcher::byte_level(const std::string& bytes) {
  std::vector<const Unit*> spans;
  consume(bytes, spans);
  size_t first = 0, last = spans.size();
  // Only spaces ("Ġ") are trimmed, as tokenizers' process_offsets does; a tab stays.
  while (first < last && spans[first]->bytes == " ") ++first;
  while (last > first && spans[last - 1]->bytes == " ") --last;
  if (first == last) {
    const int32_t end = spans.empty() ? here().start : spans.back()->span.end;
    return {end, end};
  }
  return covering({spans.begin() + static_cast<std::ptrdiff_t>(first), spans.begin() + static_cast<std::ptrdiff_t>(last)}, here());
}

// A Metaspace token: a leading "▁" is a space of the text (or one the
// normalizer wrote) when one is there, else the one the pre-tokenizer put
// before the word, aligned with the word's first character.
CharSpan Matcher::metaspace(const std::string& text) {
  if (style_.drops_whitespace) skip_between_words();
  else skip_empty();
  std::vector<const Unit*> spans;
  std::string rest = text;
  if (!rest.empty() && rest[0] == ' ') {
    if (!at_end() && b_ == 0 && (unit().marker || unit().bytes == " ")) {
      spans.push_back(&unit());
      ++u_;
    } else {
      skip_empty();
      if (!at_end()) spans.push_back(&unit());
    }
    rest.erase(0, 1);
  }
  consume(rest, spans);
  return covering(spans, here());
}

// The byte tokens of one unknown piece all get the piece's offsets, as
// tokenizers gives them: a run of byte-fallback tokens is one unknown piece.
void widen_fallback_runs(std::vector<CharSpan>& spans, const std::vector<bool>& fallback) {
  for (size_t i = 0; i < spans.size();) {
    if (!fallback[i]) {
      ++i;
      continue;
    }
    size_t j = i;
    CharSpan run = spans[i];
    for (; j < spans.size() && fallback[j]; ++j) run = {std::min(run.start, spans[j].start), std::max(run.end, spans[j].end)};
    for (size_t k = i; k < j; ++k) spans[k] = run;
    i = j;
  }
}

Style style_of(const JsonTokenizer& tokenizer) {
  Style style;
  std::vector<int32_t> probe;
  tokenizer.tokenize(" a", probe);
  const std::string first = probe.empty() ? std::string() : tokenizer.id_to_token(probe.front());
  if (first.rfind("\xC4\xA0", 0) == 0) style.surface = Surface::ByteLevel;
  if (first.rfind(kMetaspace, 0) == 0) style.surface = Surface::Metaspace;
  if (style.surface == Surface::Metaspace && tokenizer.parts().pre_tokenizer) {
    // A pre-tokenizer that keeps the text's spaces turns "a  b" into "▁a", "▁", "▁b".
    std::vector<hf::Piece> pieces{{"a  b", -1, true}};
    tokenizer.parts().pre_tokenizer->split(pieces);
    style.drops_whitespace = std::none_of(pieces.begin(), pieces.end(), [](const hf::Piece& p) { return p.text == kMetaspace; });
  }
  return style;
}

TokenizedText json_offsets(const JsonTokenizer& tokenizer, std::string_view text) {
  TokenizedText out;
  tokenizer.tokenize(text, out.ids);
  const Style style = style_of(tokenizer);
  std::vector<Unit> units = normalized_units(text, tokenizer.parts().normalizer.get());
  if (style.surface == Surface::Metaspace)
    for (Unit& u : units)
      if (u.marker) u.bytes = " ";
  Matcher matcher(std::move(units), style);
  const auto chars = utf8_characters(text);
  std::vector<bool> fallback;
  for (int32_t id : out.ids) {
    const std::string token = tokenizer.id_to_token(id);
    std::string byte;
    fallback.push_back(style.surface != Surface::ByteLevel && byte_fallback(token, byte));
    if (tokenizer.added_tokens().id_of(token) == id) out.offsets.push_back(matcher.literal(chars, token));
    else if (style.surface == Surface::ByteLevel) out.offsets.push_back(matcher.byte_level(byte_level_decoded(token)));
    else if (fallback.back()) out.offsets.push_back(matcher.metaspace(byte));
    else if (style.surface == Surface::Metaspace) out.offsets.push_back(matcher.metaspace(replaced_metaspace(token)));
    else out.offsets.push_back(matcher.word_piece(token.rfind("##", 0) == 0 && token.size() > 2 ? token.substr(2) : token, false));
  }
  widen_fallback_runs(out.offsets, fallback);
  return out;
}

TokenizedText wordpiece_offsets(const WordPieceTokenizer& tokenizer, std::string_view text) {
  TokenizedText out;
  tokenizer.tokenize(text, out.ids);
  Matcher matcher(bert_units(text, tokenizer.settings()), Style{});
  const auto chars = utf8_characters(text);
  const SpecialTokenIds& special = tokenizer.special_ids();
  for (int32_t id : out.ids) {
    const std::string token = tokenizer.id_to_token(id);
    const bool special_id = id == special.cls || id == special.sep || id == special.pad || id == special.mask;
    if (special_id) out.offsets.push_back(matcher.literal(chars, token));
    else if (id == special.unk) out.offsets.push_back(matcher.word_piece({}, true));
    else out.offsets.push_back(matcher.word_piece(token.rfind("##", 0) == 0 && token.size() > 2 ? token.substr(2) : token, false));
  }
  return out;
}

}  // namespace
}  // namespace offsets

TokenizedText tokenize_with_offsets(const Tokenizer& tokenizer, std::string_view text) {
  if (const auto* wp = dynamic_cast<const WordPieceTokenizer*>(&tokenizer)) return offsets::wordpiece_offsets(*wp, text);
  if (const auto* json = dynamic_cast<const JsonTokenizer*>(&tokenizer)) return offsets::json_offsets(*json, text);
  TokenizedText out;
  tokenizer.tokenize(text, out.ids);
  out.offsets.assign(out.ids.size(), CharSpan{});
  return out;
}

}  // namespace runner
