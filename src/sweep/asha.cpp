#include "sweep/asha.h"

#include "sweep/replicates.h"

#include <algorithm>
#include <map>

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

// The points of each configuration, configurations in the order of their
// first point; a point without one is a configuration alone.
std::vector<std::vector<size_t>> configurations_of(const std::vector<RungPoint>& points) {
  std::vector<std::vector<size_t>> groups;
  std::map<int, size_t> where;
  for (size_t i = 0; i < points.size(); ++i) {
    if (points[i].configuration < 0) {
      groups.push_back({i});
      continue;
    }
    auto [it, added] = where.emplace(points[i].configuration, groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

// A configuration as rung `rung` sees it: the mean metric and loss of its
// points there. A point that dropped out at a lower rung is no longer counted.
struct RungGroup {
  const std::vector<size_t>* points = nullptr;
  bool reported = false;  // every point still in it has reported here
  std::optional<double> metric, loss;
};

RungGroup group_at(const std::vector<RungPoint>& points, const std::vector<size_t>& members, int rung) {
  RungGroup g{&members};
  std::vector<double> metrics, losses;
  size_t counted = 0, reported = 0;
  for (size_t i : members) {
    const RungPoint& p = points[i];
    if (p.dropped && std::max(p.target, 0) < rung) continue;
    ++counted;
    if (!reported_at(p, rung)) continue;
    ++reported;
    if (has_metric_at(p, rung)) metrics.push_back(*p.metrics[rung]);
    if (std::optional<double> l = loss_at(p, rung)) losses.push_back(*l);
  }
  g.reported = counted > 0 && reported == counted;
  g.metric = mean_and_sd(metrics).mean;
  g.loss = mean_and_sd(losses).mean;
  return g;
}

// Whether configuration a ranks before b: a better mean metric, one with a
// metric before one without; equal metrics by the lower mean loss.
bool group_ranks_before(const RungGroup& a, const RungGroup& b, bool higher_is_better) {
  if (a.metric.has_value() != b.metric.has_value()) return a.metric.has_value();
  if (!a.metric) return false;
  if (*a.metric != *b.metric) return higher_is_better ? *a.metric > *b.metric : *a.metric < *b.metric;
  return a.loss && b.loss && *a.loss < *b.loss;
}

// The configurations reported at `rung`, best first.
std::vector<RungGroup> ranked_at(const std::vector<RungPoint>& points, const std::vector<std::vector<size_t>>& groups,
                                 int rung, bool higher_is_better) {
  std::vector<RungGroup> reported;
  for (const auto& members : groups) {
    RungGroup g = group_at(points, members, rung);
    if (g.reported) reported.push_back(g);
  }
  std::stable_sort(reported.begin(), reported.end(), [&](const RungGroup& a, const RungGroup& b) {
    return group_ranks_before(a, b, higher_is_better);
  });
  return reported;
}

// A point of the configuration still waiting at `rung` to go on.
std::optional<size_t> waiting_at(const std::vector<RungPoint>& points, const RungGroup& g, int rung) {
  for (size_t i : *g.points)
    if (!points[i].dropped && points[i].target == rung && reported_at(points[i], rung)) return i;
  return std::nullopt;
}

}  // namespace

std::optional<Promotion> certain_promotion(const std::vector<RungPoint>& points, int rung_count, long long eta,
                                           bool higher_is_better) {
  const std::vector<std::vector<size_t>> groups = configurations_of(points);
  std::optional<Promotion> found;
  long long expected = static_cast<long long>(groups.size());  // the configurations that will report here
  for (int rung = 0; rung + 1 < rung_count; ++rung) {
    const std::vector<RungGroup> ranked = ranked_at(points, groups, rung, higher_is_better);
    const long long quota = expected / eta;
    const long long pending = std::max(0LL, expected - static_cast<long long>(ranked.size()));
    long long with_metric = 0;
    std::optional<Promotion> here;
    for (size_t k = 0; k < ranked.size(); ++k) {
      if (!ranked[k].metric) break;  // the metric-less rank last
      ++with_metric;
      const bool sure = static_cast<long long>(k) + pending < quota;
      if (!sure || here) continue;
      if (auto i = waiting_at(points, ranked[k], rung)) here = Promotion{*i, rung + 1};
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
