#include "tokenizer/wordpiece.h"

#include "tokenizer/unicode_text.h"

namespace runner {

namespace {

// ASCII classes of BasicTokenizer, precomputed once.
enum AsciiClass : unsigned char { kKeep, kDrop, kSpace, kPunct };

struct AsciiTable {
  AsciiClass cls[128];
  AsciiTable() {
    for (char32_t c = 0; c < 128; ++c) {
      if (unicode::is_deleted_by_cleaning(c)) cls[c] = kDrop;
      else if (unicode::is_bert_whitespace(c)) cls[c] = kSpace;
      else if (unicode::is_bert_punctuation(c)) cls[c] = kPunct;
      else cls[c] = kKeep;
    }
  }
};
const AsciiTable kAscii;

bool is_utf8_continuation(unsigned char b) { return (b & 0xC0) == 0x80; }

size_t count_code_points(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += !is_utf8_continuation(static_cast<unsigned char>(c));
  return n;
}

}  // namespace

WordPieceTokenizer::WordPieceTokenizer(Vocab vocab, WordPieceSettings settings,
                                       std::string fingerprint)
    : vocab_(std::move(vocab)), settings_(std::move(settings)), fingerprint_(std::move(fingerprint)) {
  strip_accents_ = settings_.strip_accents.value_or(settings_.lowercase);
  // A special token missing from the vocabulary maps to [UNK], as convert_tokens_to_ids does.
  special_.unk = vocab_.id(settings_.unk_token);
  auto lookup = [&](const std::string& t) {
    int32_t id = vocab_.id(t);
    return id >= 0 ? id : special_.unk;
  };
  special_.cls = lookup(settings_.cls_token);
  special_.sep = lookup(settings_.sep_token);
  special_.pad = lookup(settings_.pad_token);
  special_.mask = lookup(settings_.mask_token);
  for (const std::string* t : {&settings_.unk_token, &settings_.sep_token, &settings_.pad_token,
                               &settings_.cls_token, &settings_.mask_token})
    if (!t->empty()) special_strings_.emplace_back(*t, lookup(*t));
}

size_t WordPieceTokenizer::special_at(std::string_view text, size_t pos, int32_t& id) const {
  for (const auto& [s, sid] : special_strings_)
    if (text.compare(pos, s.size(), s) == 0) {
      id = sid;
      return s.size();
    }
  return 0;
}

bool WordPieceTokenizer::is_special_string(std::string_view word) const {
  for (const auto& entry : special_strings_)
    if (word == entry.first) return true;
  return false;
}

// Special-token strings are found in the raw text first (case-sensitively,
// even glued to other characters); the rest goes through BasicTokenizer.
void WordPieceTokenizer::tokenize(std::string_view text, std::vector<int32_t>& out) const {
  size_t start = 0;
  for (size_t pos = 0; pos < text.size(); ++pos) {
    if (text[pos] != '[') continue;  // every BERT special token starts with '['
    int32_t id = -1;
    size_t len = special_at(text, pos, id);
    if (len == 0) continue;
    tokenize_piece(text.substr(start, pos - start), out);
    out.push_back(id);
    start = pos + len;
    pos = start - 1;
  }
  tokenize_piece(text.substr(start), out);
}

// Lower-casing (one character at a time), cleaning and CJK spacing in one pass.
void WordPieceTokenizer::normalize_piece(std::string_view piece, std::string& text) const {
  const bool lower = settings_.lowercase;
  for (size_t i = 0; i < piece.size();) {
    auto byte = static_cast<unsigned char>(piece[i]);
    if (byte < 0x80) {
      ++i;
      switch (kAscii.cls[byte]) {
        case kDrop: break;
        case kSpace: text.push_back(' '); break;
        default:
          text.push_back(static_cast<char>(lower && byte >= 'A' && byte <= 'Z' ? byte + 32 : byte));
      }
      continue;
    }
    char32_t cp = unicode::next_code_point(piece, i);
    if (unicode::is_deleted_by_cleaning(cp)) continue;
    if (unicode::is_bert_whitespace(cp)) {
      text.push_back(' ');
      continue;
    }
    bool cjk = settings_.tokenize_chinese_chars && unicode::is_cjk_ideograph(cp);
    if (cjk) text.push_back(' ');
    if (lower) unicode::append_lower(text, cp);
    else unicode::append_utf8(text, cp);
    if (cjk) text.push_back(' ');
  }
}

void WordPieceTokenizer::tokenize_piece(std::string_view piece, std::vector<int32_t>& out) const {
  thread_local std::string text;
  text.clear();
  normalize_piece(piece, text);
  if (!unicode::is_ascii(text)) text = unicode::nfc(text);
  // Python's str.split(): after cleaning only ' ', U+2028 and U+2029 remain as separators.
  size_t word_start = 0;
  for (size_t i = 0; i <= text.size();) {
    size_t sep_len = 0;
    if (i == text.size() || text[i] == ' ') sep_len = 1;
    else if (text.compare(i, 3, "\xE2\x80\xA8") == 0 || text.compare(i, 3, "\xE2\x80\xA9") == 0)
      sep_len = 3;
    if (sep_len == 0) {
      ++i;
      continue;
    }
    if (i > word_start) tokenize_word(std::string_view(text).substr(word_start, i - word_start), out);
    i += sep_len;
    word_start = i;
  }
}

void WordPieceTokenizer::tokenize_word(std::string_view word, std::vector<int32_t>& out) const {
  if (is_special_string(word)) {  // never_split: no case change, no punctuation split
    wordpiece(word, out);
    return;
  }
  if (strip_accents_ && !unicode::is_ascii(word)) {
    // Lower-casing already happened per character; Python's word.lower() is then a no-op.
    thread_local std::string stripped;
    stripped.clear();
    unicode::append_nfd_without_marks(stripped, word);
    split_punctuation(stripped, out);
    return;
  }
  split_punctuation(word, out);
}

void WordPieceTokenizer::split_punctuation(std::string_view word, std::vector<int32_t>& out) const {
  size_t start = 0;
  for (size_t i = 0; i < word.size();) {
    auto byte = static_cast<unsigned char>(word[i]);
    size_t char_start = i;
    bool punct;
    if (byte < 0x80) {
      punct = kAscii.cls[byte] == kPunct;
      ++i;
    } else {
      punct = unicode::is_bert_punctuation(unicode::next_code_point(word, i));
    }
    if (!punct) continue;
    if (char_start > start) wordpiece(word.substr(start, char_start - start), out);
    wordpiece(word.substr(char_start, i - char_start), out);
    start = i;
  }
  if (word.size() > start) wordpiece(word.substr(start), out);
}

// Greedy longest-match-first; a word with an unmatched position, or longer than
// max_input_chars_per_word characters, becomes one [UNK].
void WordPieceTokenizer::wordpiece(std::string_view word, std::vector<int32_t>& out) const {
  if (count_code_points(word) > static_cast<size_t>(settings_.max_input_chars_per_word)) {
    out.push_back(special_.unk);
    return;
  }
  const size_t first_piece = out.size();
  for (size_t pos = 0; pos < word.size();) {
    size_t end = pos;
    int32_t id = vocab_.longest_match(word, pos, pos > 0, end);
    if (id < 0) {
      out.resize(first_piece);
      out.push_back(special_.unk);
      return;
    }
    out.push_back(id);
    pos = end;
  }
}

}  // namespace runner
