// Ranks that say a tie: values already in rank order get their place, and
// equal values share the place of the first of them, marked "=" ("1", "=2",
// "=2", "4"). One rule for every table that ranks (sweep --status, the report).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace runner {

// A missing value ties with nothing and keeps its place.
std::vector<std::string> tie_rank_labels(const std::vector<std::optional<double>>& ranked_values);

}  // namespace runner
