// UTF-8 validity, for text a user hands in (recipes, --set values, data rows)
// before it reaches code that assumes UTF-8 (JSON output, the tokenizer), and
// text from records made safe to print on a terminal.
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

// `text` as it may be printed on a terminal: the one function for anything a
// record (a run name, a status, a metric name, a path) sends to a terminal.
// Control characters (C0, DEL, C1), the bidirectional overrides and bytes that
// are not UTF-8 are written as \xNN or \uNNNN, so an ESC sequence in a run
// name cannot clear the screen or set the window title, and what is shown
// still says which bytes the record holds. With `keep_line_breaks` a '\n'
// stays one (a message or a table of several lines).
std::string terminal_safe(std::string_view text, bool keep_line_breaks = false);

// JSON text (nlohmann's dump, which escapes C0 controls already) with DEL and
// the characters terminal_safe escapes written as \uXXXX escapes: the same
// JSON values, and nothing in them that can drive or reorder a terminal.
std::string json_terminal_safe(std::string_view json);

}  // namespace runner
