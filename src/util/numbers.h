// Text a user wrote -> a number, checked: the one place that does it, so that
// "99999999999999999999" or "12abc" becomes a message, never std::stoi's
// exception text. Callers add where the text came from (file:line, flag, key).
#pragma once

#include <climits>
#include <optional>
#include <string>
#include <string_view>

namespace runner {

// A decimal integer (optional leading '-'; no spaces, no '+', no fraction) in
// [lo, hi]. nullopt with `why` set: "expected an integer, found \"1.5\"" or
// "expected an integer <= 2147483647, found 99999999999999999999".
std::optional<long long> parse_integer(std::string_view text, std::string& why,
                                       long long lo = LLONG_MIN, long long hi = LLONG_MAX);

// A finite decimal number (1, -2.5, 3e-5) in [lo, hi]; inf and nan are refused.
std::optional<double> parse_number(std::string_view text, std::string& why,
                                   double lo = -1.7976931348623157e308,
                                   double hi = 1.7976931348623157e308);

}  // namespace runner
