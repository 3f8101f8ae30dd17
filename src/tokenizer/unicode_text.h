// Unicode helpers for the BERT tokenizer: UTF-8 decoding and the character
// classes and normalisations of Hugging Face's BasicTokenizer. Properties and
// normalisation come from utf8proc; ASCII takes table-free fast paths.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace runner::unicode {

// Decodes the code point at s[i] and advances i. A malformed sequence yields
// U+FFFD and advances one byte (the tokenizer deletes U+FFFD anyway).
char32_t next_code_point(std::string_view s, size_t& i);
void append_utf8(std::string& out, char32_t cp);

// True when utf8proc (Unicode 15.0) knows `cp` but Python 3.11's unicodedata
// (Unicode 14.0) does not: Python sees those as Cn, so BERT cleaning deletes them.
bool assigned_after_unicode_14(char32_t cp);

// BasicTokenizer._clean_text drops these: NUL, U+FFFD and category C* except \t \n \r.
bool is_deleted_by_cleaning(char32_t cp);
// ' ', \t, \n, \r and category Zs.
bool is_bert_whitespace(char32_t cp);
// ASCII 33-47, 58-64, 91-96, 123-126 and every category P*.
bool is_bert_punctuation(char32_t cp);
// The CJK Unified Ideograph blocks that BERT surrounds with spaces.
bool is_cjk_ideograph(char32_t cp);
// What Python's str.split() also splits on after cleaning: U+2028, U+2029.
bool is_line_or_paragraph_separator(char32_t cp);

// Python's one-character str.lower(): the simple lowercase mapping, except
// U+0130 which becomes "i" + U+0307.
void append_lower(std::string& out, char32_t cp);

bool is_ascii(std::string_view s);

// The Unicode White_Space property (Rust's char::is_whitespace, Oniguruma's \s).
bool is_white_space(char32_t cp);
// General category L* (\p{L}), N* (\p{N}), M* (combining marks), Mn.
bool is_letter(char32_t cp);
bool is_number(char32_t cp);
bool is_mark(char32_t cp);
bool is_nonspacing_mark(char32_t cp);

// One of the four Unicode normal forms of valid UTF-8 text.
enum class NormalForm { NFC, NFD, NFKC, NFKD };
std::string normalize(std::string_view s, NormalForm form);
// Unicode NFC of valid UTF-8 text.
std::string nfc(std::string_view s);
// NFD with every category-Mn character removed (BertTokenizer's strip accents).
void append_nfd_without_marks(std::string& out, std::string_view word);

}  // namespace runner::unicode
