// UTF-8 validity, for text a user hands in (recipes, --set values, data rows)
// before it reaches code that assumes UTF-8 (JSON output, the tokenizer).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace runner {

// Index of the first byte that starts no valid UTF-8 sequence (overlong forms,
// surrogates and code points above U+10FFFF count as invalid), or npos.
size_t find_invalid_utf8(std::string_view s);

// Where the first invalid byte of a text is (1-based line and column) and its value.
struct InvalidUtf8 {
  int line = 0, column = 0;
  unsigned char byte = 0;
  std::string what() const;  // "invalid UTF-8 byte 0xE8"
};
std::optional<InvalidUtf8> first_invalid_utf8(std::string_view text);

}  // namespace runner
