#include "tokenizer/unicode_text.h"

#include <utf8proc.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <vector>

namespace runner::unicode {

static constexpr char32_t kReplacement = 0xFFFD;

char32_t next_code_point(std::string_view s, size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    ++i;
    return c;
  }
  utf8proc_int32_t cp = 0;
  utf8proc_ssize_t n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data() + i),
                                        static_cast<utf8proc_ssize_t>(s.size() - i), &cp);
  if (n <= 0) {
    ++i;
    return kReplacement;
  }
  i += static_cast<size_t>(n);
  return static_cast<char32_t>(cp);
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
    return;
  }
  utf8proc_uint8_t buf[4];
  utf8proc_ssize_t n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(cp), buf);
  out.append(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

// The code points Unicode 15.0 assigned (DerivedAge.txt, age 15.0), as ranges.
// They are the only character-property differences between utf8proc 2.8
// (Unicode 15.0) and Python 3.11's unicodedata (14.0) that matter here; a test
// in tests/data checks a sample of them.
static constexpr char32_t kUnicode15Additions[][2] = {
    {0x0CF3, 0x0CF3},   {0x0ECE, 0x0ECE},   {0x10EFD, 0x10EFF}, {0x1123F, 0x11241},
    {0x11B00, 0x11B09}, {0x11F00, 0x11F10}, {0x11F12, 0x11F3A}, {0x11F3E, 0x11F59},
    {0x1342F, 0x1342F}, {0x13439, 0x13455}, {0x1B132, 0x1B132}, {0x1B155, 0x1B155},
    {0x1D2C0, 0x1D2D3}, {0x1DF25, 0x1DF2A}, {0x1E030, 0x1E06D}, {0x1E08F, 0x1E08F},
    {0x1E4D0, 0x1E4F9}, {0x1F6DC, 0x1F6DC}, {0x1F774, 0x1F776}, {0x1F77B, 0x1F77F},
    {0x1F7D9, 0x1F7D9}, {0x1FA75, 0x1FA77}, {0x1FA87, 0x1FA88}, {0x1FAAD, 0x1FAAF},
    {0x1FABB, 0x1FABD}, {0x1FABF, 0x1FABF}, {0x1FACE, 0x1FACF}, {0x1FADA, 0x1FADB},
    {0x1FAE8, 0x1FAE8}, {0x1FAF7, 0x1FAF8}, {0x2B739, 0x2B739}, {0x31350, 0x323AF},
};

bool assigned_after_unicode_14(char32_t cp) {
  if (cp < 0x0CF3) return false;
  for (const auto& r : kUnicode15Additions)
    if (cp >= r[0] && cp <= r[1]) return true;
  return false;
}

static utf8proc_category_t category(char32_t cp) {
  if (assigned_after_unicode_14(cp)) return UTF8PROC_CATEGORY_CN;
  return utf8proc_category(static_cast<utf8proc_int32_t>(cp));
}

bool is_deleted_by_cleaning(char32_t cp) {
  if (cp == 0 || cp == kReplacement) return true;
  if (cp == '\t' || cp == '\n' || cp == '\r') return false;
  if (cp < 0x20 || cp == 0x7F) return true;
  if (cp < 0x80) return false;
  switch (category(cp)) {
    case UTF8PROC_CATEGORY_CN:
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_CS:
    case UTF8PROC_CATEGORY_CO: return true;
    default: return false;
  }
}

bool is_bert_whitespace(char32_t cp) {
  if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r') return true;
  if (cp < 0x80) return false;
  return category(cp) == UTF8PROC_CATEGORY_ZS;
}

bool is_bert_punctuation(char32_t cp) {
  if (cp < 0x80)
    return (cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) ||
           (cp >= 123 && cp <= 126);
  switch (category(cp)) {
    case UTF8PROC_CATEGORY_PC:
    case UTF8PROC_CATEGORY_PD:
    case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI:
    case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO: return true;
    default: return false;
  }
}

bool is_cjk_ideograph(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

bool is_line_or_paragraph_separator(char32_t cp) { return cp == 0x2028 || cp == 0x2029; }

void append_lower(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp));
    return;
  }
  if (cp == 0x130) {
    out.push_back('i');
    append_utf8(out, 0x307);
    return;
  }
  append_utf8(out, static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp))));
}

bool is_ascii(std::string_view s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

bool is_white_space(char32_t cp) {
  if (cp < 0x80) return cp == ' ' || (cp >= 0x09 && cp <= 0x0D);
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
         cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

static utf8proc_category_t current_category(char32_t cp) {
  return utf8proc_category(static_cast<utf8proc_int32_t>(cp));
}

bool is_letter(char32_t cp) {
  if (cp < 0x80) return (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
  auto c = current_category(cp);
  return c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO;
}

bool is_number(char32_t cp) {
  if (cp < 0x80) return cp >= '0' && cp <= '9';
  auto c = current_category(cp);
  return c >= UTF8PROC_CATEGORY_ND && c <= UTF8PROC_CATEGORY_NO;
}

bool is_mark(char32_t cp) {
  if (cp < 0x80) return false;
  auto c = current_category(cp);
  return c >= UTF8PROC_CATEGORY_MN && c <= UTF8PROC_CATEGORY_ME;
}

bool is_nonspacing_mark(char32_t cp) { return cp >= 0x80 && current_category(cp) == UTF8PROC_CATEGORY_MN; }

std::string nfc(std::string_view s) { return normalize(s, NormalForm::NFC); }

std::string normalize(std::string_view s, NormalForm form) {
  int options = UTF8PROC_STABLE;
  if (form == NormalForm::NFC || form == NormalForm::NFKC) options |= UTF8PROC_COMPOSE;
  else options |= UTF8PROC_DECOMPOSE;
  if (form == NormalForm::NFKC || form == NormalForm::NFKD) options |= UTF8PROC_COMPAT;
  utf8proc_uint8_t* mapped = nullptr;
  utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                                    static_cast<utf8proc_ssize_t>(s.size()), &mapped,
                                    static_cast<utf8proc_option_t>(options));
  if (n < 0) throw std::runtime_error(std::string("Unicode normalization failed: ") + utf8proc_errmsg(n));
  std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(mapped, &std::free);
  return std::string(reinterpret_cast<const char*>(mapped), static_cast<size_t>(n));
}

void append_nfd_without_marks(std::string& out, std::string_view word) {
  // utf8proc_decompose also puts combining marks into canonical order, as NFD requires.
  thread_local std::vector<utf8proc_int32_t> buffer;
  auto options = static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_DECOMPOSE);
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(word.data());
  auto len = static_cast<utf8proc_ssize_t>(word.size());
  if (buffer.size() < word.size() * 4 + 8) buffer.resize(word.size() * 4 + 8);
  utf8proc_ssize_t n = utf8proc_decompose(bytes, len, buffer.data(),
                                          static_cast<utf8proc_ssize_t>(buffer.size()), options);
  if (n > static_cast<utf8proc_ssize_t>(buffer.size())) {
    buffer.resize(static_cast<size_t>(n));
    n = utf8proc_decompose(bytes, len, buffer.data(), n, options);
  }
  if (n < 0) throw std::runtime_error(std::string("NFD failed: ") + utf8proc_errmsg(n));
  for (utf8proc_ssize_t i = 0; i < n; ++i) {
    auto cp = static_cast<char32_t>(buffer[i]);
    if (cp >= 0x80 && category(cp) == UTF8PROC_CATEGORY_MN) continue;
    append_utf8(out, cp);
  }
}

}  // namespace runner::unicode
