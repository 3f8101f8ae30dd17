#include "util/numbers.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace runner {
namespace {

// The range as a reader would say it; the type's own limits go unsaid.
std::string integer_range(long long lo, long long hi) {
  if (lo == LLONG_MIN && hi == LLONG_MAX) return "an integer";
  if (hi == LLONG_MAX) return fmt::format("an integer >= {}", lo);
  if (lo == LLONG_MIN) return fmt::format("an integer <= {}", hi);
  return fmt::format("an integer in [{}, {}]", lo, hi);
}

std::string shown(std::string_view text) {
  std::string s(text.substr(0, 40));
  if (text.size() > 40) s += "...";
  return "\"" + s + "\"";
}

}  // namespace

std::optional<long long> parse_integer(std::string_view text, std::string& why, long long lo,
                                       long long hi) {
  long long v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  bool whole = !text.empty() && end == text.data() + text.size();
  if (ec == std::errc::result_out_of_range && whole) {
    bool negative = text[0] == '-';
    why = fmt::format("expected {}, found {}, which is {} than any 64-bit integer",
                      integer_range(lo, hi), shown(text), negative ? "smaller" : "larger");
    return std::nullopt;
  }
  if (ec != std::errc() || !whole) {
    why = fmt::format("expected {}, found {}", integer_range(lo, hi), shown(text));
    return std::nullopt;
  }
  if (v < lo || v > hi) {
    why = fmt::format("expected {}, found {}", integer_range(lo, hi), v);
    return std::nullopt;
  }
  return v;
}

std::optional<double> parse_number(std::string_view text, std::string& why, double lo, double hi) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  bool whole = !text.empty() && end == text.data() + text.size();
  if (ec != std::errc() || !whole || !std::isfinite(v)) {
    why = fmt::format("expected a finite number, found {}", shown(text));
    return std::nullopt;
  }
  if (v < lo || v > hi) {
    std::string range = hi >= 1.7976931348623157e308 ? fmt::format("a number >= {}", lo)
                        : lo <= -1.7976931348623157e308 ? fmt::format("a number <= {}", hi)
                                                        : fmt::format("a number in [{}, {}]", lo, hi);
    why = fmt::format("expected {}, found {}", range, v);
    return std::nullopt;
  }
  return v;
}

}  // namespace runner
