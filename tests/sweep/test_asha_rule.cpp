// The rungs of successive halving and the promotion ASHA makes when a job slot
// frees, on hand-made rung results whose expected decision is worked out in
// each comment.
#include "catch.h"

#include "sweep/asha.h"

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
