#include "util/suggest.h"

#include <algorithm>
#include <cctype>

namespace runner {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                  std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest_match(const std::string& found, const std::vector<std::string>& known) {
  std::string best;
  size_t best_distance = std::max<size_t>(2, found.size() / 3) + 1;
  for (const auto& k : known) {
    size_t d = edit_distance(found, k);
    // A known key that merely extends the typed one ("lr" -> "lr_end") is a good guess too.
    if (k.size() > found.size() && k.compare(0, found.size(), found) == 0 && found.size() >= 3)
      d = std::min(d, size_t{1});
    if (d < best_distance) {
      best_distance = d;
      best = k;
    }
  }
  return best;
}

std::string did_you_mean(const std::string& found, const std::vector<std::string>& known) {
  std::string m = closest_match(found, known);
  return m.empty() ? "" : "did you mean \"" + m + "\"?";
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

}  // namespace runner
