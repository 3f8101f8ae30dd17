#include "sweep/asha.h"

#include <algorithm>

namespace runner {

std::vector<long long> asha_rungs(const AshaSettings& asha) {
  std::vector<long long> rungs;
  if (asha.min_budget < 1 || asha.eta < 2) return rungs;
  for (long long r = asha.min_budget; r < asha.max_budget; r *= asha.eta) {
    rungs.push_back(r);
    if (r > asha.max_budget / asha.eta) break;  // the next would pass max_budget (or overflow)
  }
  rungs.push_back(asha.max_budget);
  return rungs;
}

namespace {

std::optional<double> loss_at(const RungPoint& p, int rung) {
  return static_cast<int>(p.losses.size()) > rung ? p.losses[rung] : std::nullopt;
}

// Whether point a ranks before point b at `rung`: a better metric, one with a
// metric before one without; equal metrics by the lower loss; else the order given.
bool ranks_before(const RungPoint& a, const RungPoint& b, int rung, bool higher_is_better) {
  const std::optional<double>&x = a.metrics[rung], &y = b.metrics[rung];
  if (x.has_value() != y.has_value()) return x.has_value();
  if (!x) return false;
  if (*x != *y) return higher_is_better ? *x > *y : *x < *y;
  const std::optional<double> u = loss_at(a, rung), v = loss_at(b, rung);
  return u && v && *u < *v;
}

std::optional<size_t> promotable_at(const std::vector<RungPoint>& points, int rung, long long eta,
                                    bool higher_is_better) {
  std::vector<size_t> finished;
  for (size_t i = 0; i < points.size(); ++i)
    if (static_cast<int>(points[i].metrics.size()) > rung) finished.push_back(i);
  std::stable_sort(finished.begin(), finished.end(), [&](size_t a, size_t b) {
    return ranks_before(points[a], points[b], rung, higher_is_better);
  });
  const size_t top = finished.size() / static_cast<size_t>(eta);
  for (size_t k = 0; k < top; ++k) {
    const RungPoint& p = points[finished[k]];
    // Promoted already when sent past this rung; not running when it finished its target.
    if (p.target == rung && p.finished_target() && p.metrics[rung].has_value()) return finished[k];
  }
  return std::nullopt;
}

bool has_metric_at(const RungPoint& p, int rung) {
  return static_cast<int>(p.metrics.size()) > rung && p.metrics[rung].has_value();
}

// Whether the point has reported at `rung`: its run finished there (with or
// without a metric), or it dropped out of the search while sent there.
bool reported_at(const RungPoint& p, int rung) {
  return static_cast<int>(p.metrics.size()) > rung || (p.dropped && std::max(p.target, 0) == rung);
}

// The points reported at `rung`, best first.
std::vector<size_t> ranked_at(const std::vector<RungPoint>& points, int rung, bool higher_is_better) {
  std::vector<size_t> reported;
  for (size_t i = 0; i < points.size(); ++i)
    if (reported_at(points[i], rung)) reported.push_back(i);
  std::stable_sort(reported.begin(), reported.end(), [&](size_t a, size_t b) {
    const bool a_has = has_metric_at(points[a], rung), b_has = has_metric_at(points[b], rung);
    if (a_has != b_has) return a_has;
    return a_has && ranks_before(points[a], points[b], rung, higher_is_better);
  });
  return reported;
}

}  // namespace

std::optional<Promotion> certain_promotion(const std::vector<RungPoint>& points, int rung_count, long long eta,
                                           bool higher_is_better) {
  std::optional<Promotion> found;
  long long expected = static_cast<long long>(points.size());  // the points that will report at this rung
  for (int rung = 0; rung + 1 < rung_count; ++rung) {
    const std::vector<size_t> ranked = ranked_at(points, rung, higher_is_better);
    const long long quota = expected / eta;
    const long long pending = std::max(0LL, expected - static_cast<long long>(ranked.size()));
    long long with_metric = 0;
    std::optional<Promotion> here;
    for (size_t k = 0; k < ranked.size(); ++k) {
      const RungPoint& p = points[ranked[k]];
      if (!has_metric_at(p, rung)) break;  // the metric-less rank last
      ++with_metric;
      const bool sure = static_cast<long long>(k) + pending < quota;
      if (sure && !here && !p.dropped && p.target == rung) here = Promotion{ranked[k], rung + 1};
    }
    if (here) found = here;  // a higher rung's promotion goes first
    // A settled rung sends on exactly its top quota that have a metric; until
    // then the quota bounds it.
    expected = pending == 0 ? std::min(quota, with_metric) : quota;
  }
  return found;
}

std::optional<Promotion> asha_promotion(const std::vector<RungPoint>& points, int rung_count, long long eta,
                                        bool higher_is_better) {
  for (int rung = rung_count - 2; rung >= 0; --rung)
    if (auto i = promotable_at(points, rung, eta, higher_is_better)) return Promotion{*i, rung + 1};
  return std::nullopt;
}

}  // namespace runner
