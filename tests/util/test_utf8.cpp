// UTF-8 validity as the Unicode standard's table 3-7 (well-formed byte
// sequences) defines it; each case below is derived by hand from that table.
#include "catch.h"

#include "util/utf8.h"

using runner::find_invalid_utf8;
using runner::first_invalid_utf8;
using runner::terminal_safe;

namespace {
constexpr size_t kValid = std::string_view::npos;
}

TEST_CASE("find_invalid_utf8 accepts every well-formed sequence length", "[util][utf8]") {
  CHECK(find_invalid_utf8("") == kValid);
  CHECK(find_invalid_utf8("plain ASCII\t\n") == kValid);
  CHECK(find_invalid_utf8("caf\xc3\xa9") == kValid);              // U+00E9
  CHECK(find_invalid_utf8("\xe2\x82\xac") == kValid);             // U+20AC
  CHECK(find_invalid_utf8("\xed\x9f\xbf") == kValid);             // U+D7FF, last before the surrogates
  CHECK(find_invalid_utf8("\xf0\x9f\x98\x80") == kValid);         // U+1F600
  CHECK(find_invalid_utf8("\xf4\x8f\xbf\xbf") == kValid);         // U+10FFFF, the last code point
}

TEST_CASE("find_invalid_utf8 points at the first byte of an ill-formed sequence", "[util][utf8]") {
  CHECK(find_invalid_utf8("caf\xe9") == 3);                       // Latin-1: a lead byte, no continuation
  CHECK(find_invalid_utf8("a\x80") == 1);                         // a lone continuation byte
  CHECK(find_invalid_utf8("\xc0\xaf") == 0);                      // overlong '/' (C0, C1 never appear)
  CHECK(find_invalid_utf8("\xe0\x80\xaf") == 0);                  // overlong 3-byte form
  CHECK(find_invalid_utf8("\xf0\x8f\xbf\xbf") == 0);              // overlong 4-byte form
  CHECK(find_invalid_utf8("ok\xed\xa0\x80") == 2);                // U+D800, a surrogate
  CHECK(find_invalid_utf8("\xf4\x90\x80\x80") == 0);              // U+110000, past the last code point
  CHECK(find_invalid_utf8("\xf5\x80\x80\x80") == 0);              // F5..FF never appear
  CHECK(find_invalid_utf8("\xe2\x82") == 0);                      // cut short at the end
  CHECK(find_invalid_utf8("\xe2\x82z") == 0);                     // cut short by ASCII
}

TEST_CASE("first_invalid_utf8 gives the line and column of the bad byte", "[util][utf8]") {
  CHECK_FALSE(first_invalid_utf8("line one\nline two\n"));
  auto bad = first_invalid_utf8("one\ntwo\n  x\xff");
  REQUIRE(bad);
  CHECK(bad->line == 3);
  CHECK(bad->column == 4);
  CHECK(bad->what() == "invalid UTF-8 byte 0xFF");
  auto first = first_invalid_utf8("\xfe");
  REQUIRE(first);
  CHECK(first->line == 1);
  CHECK(first->column == 1);
}

TEST_CASE("terminal_safe escapes control characters, bidi overrides and stray bytes, and keeps text", "[util][utf8]") {
  CHECK(terminal_safe("plain caf\xC3\xA9 \xE2\x82\xAC") == "plain caf\xC3\xA9 \xE2\x82\xAC");
  CHECK(terminal_safe("\x1b]0;owned\x07\x1b[2J") == "\\x1b]0;owned\\x07\\x1b[2J");
  CHECK(terminal_safe("a\tb\nc\x7f") == "a\\x09b\\x0ac\\x7f");
  CHECK(terminal_safe("a\nb", true) == "a\nb");              // a message of several lines
  CHECK(terminal_safe("\xC2\x9B" "31m") == "\\u009b31m");     // C1 CSI, the one-byte ESC [
  CHECK(terminal_safe("x\xE2\x80\xAEgpj.exe") == "x\\u202egpj.exe");  // right-to-left override
  CHECK(terminal_safe("\xE8 \xC3") == "\\xe8 \\xc3");         // not UTF-8
}
