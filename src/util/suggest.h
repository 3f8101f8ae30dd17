#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace runner {

// Levenshtein distance, ignoring case.
size_t edit_distance(const std::string& a, const std::string& b);

// The closest of `known` to `found` by edit distance, or "" when nothing is close.
std::string closest_match(const std::string& found, const std::vector<std::string>& known);

// ", did you mean \"x\"?" or "" — ready to append to a message.
std::string did_you_mean(const std::string& found, const std::vector<std::string>& known);

// "a, b, c"
std::string join(const std::vector<std::string>& items, const std::string& sep = ", ");

}  // namespace runner
