// The rungs of successive halving and the promotion ASHA makes when a job slot
// frees, on hand-made rung results whose expected decision is worked out in
// each comment.
#include "catch.h"

#include "sweep/asha.h"

#include <algorithm>
#include <random>

using namespace runner;

namespace {

// A point that finished `metrics.size()` rungs and was last sent to `target`.
RungPoint at(std::vector<std::optional<double>> metrics, int target) { return {std::move(metrics), target}; }

}  // namespace

TEST_CASE("rungs are min_budget times powers of eta, capped by max_budget", "[sweep][asha]") {
  CHECK(asha_rungs({true, 1, 27, 3}) == std::vector<long long>{1, 3, 9, 27});
  // 2, 6, 18 are below 20; 54 would pass it, so 20 closes the ladder.
  CHECK(asha_rungs({true, 2, 20, 3}) == std::vector<long long>{2, 6, 18, 20});
  CHECK(asha_rungs({true, 4, 10, 2}) == std::vector<long long>{4, 8, 10});
  CHECK(asha_rungs({true, 5, 5, 3}) == std::vector<long long>{5});
}

TEST_CASE("ASHA promotes the best unpromoted point of a rung's top 1/eta", "[sweep][asha]") {
  // Six points finished rung 0 of three rungs: floor(6 / 3) = 2 may go on, the
  // best two being B (0.9) and E (0.8); B comes first.
  std::vector<RungPoint> six = {at({0.5}, 0), at({0.9}, 0), at({0.7}, 0),
                                at({0.2}, 0), at({0.8}, 0), at({0.6}, 0)};
  auto p = asha_promotion(six, 3, 3, true);
  REQUIRE(p);
  CHECK(p->point == 1);
  CHECK(p->rung == 1);
  // B already went on (it runs rung 1): E is the other of the top two.
  six[1].target = 1;
  p = asha_promotion(six, 3, 3, true);
  REQUIRE(p);
  CHECK(p->point == 4);
  // Both went on and B finished rung 1 alone: floor(1 / 3) = 0 of rung 1 may go
  // on, and rung 0's top two are taken: a new point starts instead.
  six[4].target = 1;
  six[1].metrics.push_back(0.95);
  CHECK_FALSE(asha_promotion(six, 3, 3, true));
}

TEST_CASE("ASHA looks at the highest rung first", "[sweep][asha]") {
  // Rung 1 holds P0 (0.6), P1 (0.9), P2 (0.7): its top floor(3 / 3) = 1 is P1,
  // not yet sent on. Rung 0 also has a candidate, P6 (0.95, the best of seven),
  // but rung 1 comes first: P1 goes to rung 2.
  std::vector<RungPoint> points = {at({0.9, 0.6}, 1), at({0.8, 0.9}, 1), at({0.85, 0.7}, 1), at({0.7}, 0),
                                   at({0.3}, 0),      at({0.1}, 0),      at({0.95}, 0)};
  auto p = asha_promotion(points, 3, 3, true);
  REQUIRE(p);
  CHECK(p->point == 1);
  CHECK(p->rung == 2);
  // Once P1 runs rung 2, rung 1 has nothing left and rung 0's P6 goes on.
  points[1].target = 2;
  p = asha_promotion(points, 3, 3, true);
  REQUIRE(p);
  CHECK(p->point == 6);
  CHECK(p->rung == 1);
}

TEST_CASE("ASHA ranks by the direction, ties in order, no metric last, never from the top rung",
          "[sweep][asha]") {
  // A loss: 0.2 is the best of three, the one that goes on.
  auto p = asha_promotion({at({0.5}, 0), at({0.2}, 0), at({0.9}, 0)}, 2, 3, false);
  REQUIRE(p);
  CHECK(p->point == 1);
  // Equal metrics: the first given.
  p = asha_promotion({at({0.5}, 0), at({0.5}, 0), at({0.5}, 0)}, 2, 3, true);
  REQUIRE(p);
  CHECK(p->point == 0);
  // A point without a metric ranks below every point with one, whichever the direction.
  p = asha_promotion({at({std::nullopt}, 0), at({0.1}, 0), at({0.2}, 0)}, 2, 3, false);
  REQUIRE(p);
  CHECK(p->point == 1);
  // Only a metric-less point in the top third: nothing goes on.
  CHECK_FALSE(asha_promotion({at({std::nullopt}, 0), at({std::nullopt}, 0), at({std::nullopt}, 0)}, 2, 3, true));
  // A point still running rung 0 does not count in it: two finished, floor(2 / 3) = 0 go on.
  CHECK_FALSE(asha_promotion({at({}, 0), at({0.1}, 0), at({0.2}, 0)}, 2, 3, true));
  // Every point at the top rung: there is no rung above it.
  CHECK_FALSE(asha_promotion({at({0.1, 0.3}, 1), at({0.2, 0.4}, 1), at({0.3, 0.5}, 1)}, 2, 3, true));
}

TEST_CASE("ASHA breaks equal metrics by the lower evaluation loss", "[sweep][asha]") {
  // Three points at the majority class's F1 (0.8122) after rung 0 of two rungs:
  // floor(3 / 3) = 1 goes on. The metric ties; C has the lowest loss (0.60
  // against 0.69 and 0.65), so C goes on, not A, the first in order.
  std::vector<RungPoint> tied = {{{0.8122}, 0, {0.69}}, {{0.8122}, 0, {0.65}}, {{0.8122}, 0, {0.60}}};
  auto p = asha_promotion(tied, 2, 3, true);
  REQUIRE(p);
  CHECK(p->point == 2);
  // A better metric still wins whatever its loss: B at 0.83 with loss 0.70 goes first.
  tied[1] = {{0.83}, 0, {0.70}};
  p = asha_promotion(tied, 2, 3, true);
  REQUIRE(p);
  CHECK(p->point == 1);
  // Without losses (a ledger of an older search), ties keep the order given.
  std::vector<RungPoint> no_loss = {at({0.8122}, 0), at({0.8122}, 0), at({0.8122}, 0)};
  p = asha_promotion(no_loss, 2, 3, true);
  REQUIRE(p);
  CHECK(p->point == 0);
}

TEST_CASE("certain promotion waits until no point still to report can outrank it", "[sweep][asha]") {
  // Nine points, two rungs, eta 3: floor(9 / 3) = 3 go on. Six reported:
  // A 0.9, B 0.5, C 0.8, D 0.7, E 0.6, F 0.4; three still run. Best is A at
  // rank 0, but 0 + 3 pending is not below 3: three later points may all beat it.
  std::vector<RungPoint> nine = {at({0.9}, 0), at({0.5}, 0), at({0.8}, 0), at({0.7}, 0), at({0.6}, 0),
                                 at({0.4}, 0), at({}, 0),    at({}, 0),    at({}, 0)};
  CHECK_FALSE(certain_promotion(nine, 2, 3, true));
  // ASHA would already send A on (it leads the top floor(6 / 3) = 2).
  CHECK(asha_promotion(nine, 2, 3, true));
  // G 0.3 and H 0.2 report; one point is pending: A (0 + 1 < 3) goes on, then
  // C (1 + 1 < 3), but not D (2 + 1 = 3).
  nine[6].metrics = {0.3};
  nine[7].metrics = {0.2};
  auto p = certain_promotion(nine, 2, 3, true);
  REQUIRE(p);
  CHECK(p->point == 0);
  CHECK(p->rung == 1);
  nine[0].target = 1;
  p = certain_promotion(nine, 2, 3, true);
  REQUIRE(p);
  CHECK(p->point == 2);
  nine[2].target = 1;
  CHECK_FALSE(certain_promotion(nine, 2, 3, true));
  // The last, I, reports 0.95: the rung is complete, and its top three are I, A, C.
  // I goes on; D, fourth, never does.
  nine[8].metrics = {0.95};
  p = certain_promotion(nine, 2, 3, true);
  REQUIRE(p);
  CHECK(p->point == 8);
  nine[8].target = 1;
  CHECK_FALSE(certain_promotion(nine, 2, 3, true));
}

TEST_CASE("certain promotion counts a dropped point as reported without a metric", "[sweep][asha]") {
  // Three points, quota floor(3 / 3) = 1. A reported 0.5, B failed at rung 0
  // and is out of the search, C still runs: one pending, so A (0 + 1) waits.
  std::vector<RungPoint> three = {at({0.5}, 0), at({}, 0), at({}, 0)};
  three[1].dropped = true;
  CHECK_FALSE(certain_promotion(three, 2, 3, true));
  // C reports 0.7: nothing is pending, and C leads.
  three[2].metrics = {0.7};
  auto p = certain_promotion(three, 2, 3, true);
  REQUIRE(p);
  CHECK(p->point == 2);
  // Were B still running, it would be pending, and C would wait for it.
  three[1].dropped = false;
  CHECK_FALSE(certain_promotion(three, 2, 3, true));
}

TEST_CASE("certain promotion: a rung holds only the points that went on with a metric", "[sweep][asha]") {
  // Eight points, eta 2, three rungs. Rung 0's quota is floor(8 / 2) = 4, but
  // only A, B, C have a metric there: the rung settles with those three sent
  // on, so rung 1 holds 3 points and its quota is floor(3 / 2) = 1.
  std::vector<RungPoint> eight = {at({0.9, 0.6}, 1), at({0.8, 0.95}, 1), at({0.7}, 1)};
  for (int i = 0; i < 5; ++i) eight.push_back(at({std::nullopt}, 0));
  // A 0.6 and B 0.95 reported at rung 1, C runs: B at rank 0 + 1 pending is not below 1.
  CHECK_FALSE(certain_promotion(eight, 3, 2, true));
  // C reports 0.5: rung 1 is complete, and B goes to rung 2. Counting rung 1 as
  // four points (rung 0's quota) would leave one pending forever.
  eight[2].metrics.push_back(0.5);
  auto p = certain_promotion(eight, 3, 2, true);
  REQUIRE(p);
  CHECK(p->point == 1);
  CHECK(p->rung == 2);
}

namespace {

// Three configurations of three seeds each (points 3c, 3c + 1, 3c + 2), all
// sent to rung 0 of two; `metrics` and `losses` by point, nullopt still running.
std::vector<RungPoint> three_by_three(const std::vector<std::optional<double>>& metrics,
                                      const std::vector<double>& losses) {
  std::vector<RungPoint> points;
  for (int i = 0; i < 9; ++i) {
    RungPoint p = at(metrics[i] ? std::vector<std::optional<double>>{metrics[i]} : std::vector<std::optional<double>>{}, 0);
    if (metrics[i]) p.losses = {losses[i]};
    p.configuration = i / 3;
    points.push_back(p);
  }
  return points;
}

}  // namespace

TEST_CASE("certain promotion with replicates sends on the configuration with the best mean, all its seeds",
          "[sweep][asha]") {
  // eta 3 over 3 configurations: floor(3 / 3) = 1 goes on. A's seeds score
  // 0.9, 0.5, 0.5 (mean 0.633), B's 0.7 each (0.7), C's 0.6 each. The best
  // point is A's first seed; the best configuration is B.
  const std::vector<double> losses(9, 0.5);
  auto points = three_by_three({0.9, 0.5, 0.5, 0.7, 0.7, 0.7, 0.6, 0.6, std::nullopt}, losses);
  // C's last seed still runs: C may yet report, so B (rank 0 + 1 pending) waits.
  CHECK_FALSE(certain_promotion(points, 2, 3, true));
  points[8].metrics = {0.6};
  points[8].losses = {0.5};
  for (size_t want : {3, 4, 5}) {
    auto p = certain_promotion(points, 2, 3, true);
    REQUIRE(p);
    CHECK(p->point == want);
    CHECK(p->rung == 1);
    points[p->point].target = 1;
  }
  CHECK_FALSE(certain_promotion(points, 2, 3, true));
  // Point by point (no replicates), three of the nine go on, A's 0.9 first.
  for (auto& p : points) p.configuration = -1, p.target = 0;
  auto p = certain_promotion(points, 2, 3, true);
  REQUIRE(p);
  CHECK(p->point == 0);
}

TEST_CASE("certain promotion with replicates breaks equal mean metrics by the mean loss", "[sweep][asha]") {
  // Every seed predicts the majority class (0.8122). A's losses 0.50, 0.70,
  // 0.70 (mean 0.633) hold the lowest single loss; B's 0.60 each (0.60) the
  // lowest mean; C's 0.65 each. B goes on.
  auto points = three_by_three(std::vector<std::optional<double>>(9, 0.8122),
                               {0.50, 0.70, 0.70, 0.60, 0.60, 0.60, 0.65, 0.65, 0.65});
  auto p = certain_promotion(points, 2, 3, true);
  REQUIRE(p);
  CHECK(p->point == 3);
}

TEST_CASE("certain promotion with replicates counts a seed that failed as gone, not pending", "[sweep][asha]") {
  // B's last seed failed at rung 0 and is out: B reports with two seeds
  // (mean 0.7) and goes on with those two.
  auto points = three_by_three({0.5, 0.5, 0.5, 0.7, 0.7, std::nullopt, 0.6, 0.6, 0.6}, std::vector<double>(9, 0.5));
  points[5].dropped = true;
  auto p = certain_promotion(points, 2, 3, true);
  REQUIRE(p);
  CHECK(p->point == 3);
  points[3].target = 1;
  p = certain_promotion(points, 2, 3, true);
  REQUIRE(p);
  CHECK(p->point == 4);
  points[4].target = 1;
  CHECK_FALSE(certain_promotion(points, 2, 3, true));
}

TEST_CASE("certain promotion sends the same points as synchronous halving, in any finishing order",
          "[sweep][asha]") {
  // 27 points with distinct metrics at each of three rungs, eta 3, searched
  // with two and five job slots in random finishing orders. Synchronous
  // successive halving, computed directly, sends the top 9 of rung 0 to rung 1
  // and the top 3 of those to rung 2; the search must reach exactly those.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    const size_t jobs = trial % 2 == 0 ? 2 : 5;
    std::vector<std::vector<double>> truth(27, std::vector<double>(3));
    for (auto& m : truth)
      for (double& x : m) x = u(rng);
    std::vector<size_t> expected[3];
    for (size_t i = 0; i < 27; ++i) expected[0].push_back(i);
    for (int rung = 0; rung < 2; ++rung) {
      std::vector<size_t> order = expected[rung];
      std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return truth[a][rung] > truth[b][rung]; });
      order.resize(order.size() / 3);
      std::sort(order.begin(), order.end());
      expected[rung + 1] = order;
    }
    std::vector<RungPoint> points(27);
    std::vector<size_t> running;
    size_t next = 0;
    int runs = 0;
    for (;;) {
      while (running.size() < jobs) {
        if (auto p = certain_promotion(points, 3, 3, true)) {
          points[p->point].target = p->rung;
          running.push_back(p->point);
        } else if (next < points.size()) {
          points[next].target = 0;
          running.push_back(next++);
        } else {
          break;
        }
        ++runs;
      }
      if (running.empty()) break;
      const size_t k = std::uniform_int_distribution<size_t>(0, running.size() - 1)(rng);
      RungPoint& done = points[running[k]];
      done.metrics.push_back(truth[running[k]][done.target]);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
    }
    for (int rung = 1; rung < 3; ++rung) {
      std::vector<size_t> reached;
      for (size_t i = 0; i < 27; ++i)
        if (static_cast<int>(points[i].metrics.size()) > rung) reached.push_back(i);
      CHECK(reached == expected[rung]);
    }
    CHECK(runs == 27 + 9 + 3);
  }
}
