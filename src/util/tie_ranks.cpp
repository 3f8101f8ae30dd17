#include "util/tie_ranks.h"

namespace runner {

std::vector<std::string> tie_rank_labels(const std::vector<std::optional<double>>& v) {
  auto same = [&v](size_t a, size_t b) { return v[a] && v[b] && *v[a] == *v[b]; };
  std::vector<std::string> out;
  size_t first_of_tie = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    bool same_as_previous = i > 0 && same(i, i - 1);
    bool same_as_next = i + 1 < v.size() && same(i, i + 1);
    if (!same_as_previous) first_of_tie = i;
    std::string rank = std::to_string(first_of_tie + 1);
    out.push_back(same_as_previous || same_as_next ? "=" + rank : rank);
  }
  return out;
}

}  // namespace runner
