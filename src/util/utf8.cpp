#include "util/utf8.h"

#include <fmt/format.h>

#include <algorithm>

namespace runner {
namespace {

// Length of the valid sequence at s[i], or 0. The ranges of the second byte
// are those of the Unicode standard's table 3-7 (well-formed byte sequences).
size_t sequence_length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) n = 2;
  else if (b0 >= 0xE0 && b0 <= 0xEF) n = 3, lo = b0 == 0xE0 ? 0xA0 : 0x80, hi = b0 == 0xED ? 0x9F : 0xBF;
  else if (b0 >= 0xF0 && b0 <= 0xF4) n = 4, lo = b0 == 0xF0 ? 0x90 : 0x80, hi = b0 == 0xF4 ? 0x8F : 0xBF;
  else return 0;
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

// The code point of the valid sequence of `n` bytes at s[i].
char32_t decode(std::string_view s, size_t i, size_t n) {
  static const unsigned char kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  char32_t c = static_cast<unsigned char>(s[i]) & kLeadMask[n];
  for (size_t k = 1; k < n; ++k) c = (c << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  return c;
}

// C1 controls, the line and paragraph separators (a line break to some
// terminals and editors, none to others), and the marks that reorder the text
// around them on screen.
bool hidden_control(char32_t c) {
  return (c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029 || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069);
}

}  // namespace

std::string terminal_safe(std::string_view text, bool keep_line_breaks) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      if ((byte < 0x20 && !(byte == '\n' && keep_line_breaks)) || byte == 0x7F) out += fmt::format("\\x{:02x}", byte);
      else out += static_cast<char>(byte);
      ++i;
      continue;
    }
    const size_t n = sequence_length(text, i);
    if (n == 0) {
      out += fmt::format("\\x{:02x}", byte);
      ++i;
      continue;
    }
    const char32_t c = decode(text, i, n);
    if (hidden_control(c)) out += fmt::format("\\u{:04x}", static_cast<uint32_t>(c));
    else out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

std::string json_terminal_safe(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  size_t i = 0;
  while (i < json.size()) {
    const auto byte = static_cast<unsigned char>(json[i]);
    const size_t n = byte < 0x80 ? 1 : sequence_length(json, i);
    const char32_t c = n == 0 ? 0xFFFD : decode(json, i, n);
    if (byte == 0x7F || (n > 1 && hidden_control(c))) out += fmt::format("\\u{:04x}", static_cast<uint32_t>(c));
    else out.append(json.substr(i, n == 0 ? 1 : n));
    i += n == 0 ? 1 : n;
  }
  return out;
}

size_t find_invalid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = sequence_length(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::optional<InvalidUtf8> first_invalid_utf8(std::string_view text) {
  const size_t bad = find_invalid_utf8(text);
  if (bad == std::string_view::npos) return std::nullopt;
  const std::string_view before = text.substr(0, bad);
  const size_t newline = before.rfind('\n');
  InvalidUtf8 at;
  at.line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
  at.column = static_cast<int>(newline == std::string_view::npos ? bad + 1 : bad - newline);
  at.byte = static_cast<unsigned char>(text[bad]);
  return at;
}

std::string InvalidUtf8::what() const { return fmt::format("invalid UTF-8 byte 0x{:02X}", byte); }

}  // namespace runner
