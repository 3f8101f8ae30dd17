// Successive halving, asynchronous (ASHA, Li et al. 2018, arXiv 1810.05934):
// the rungs of a budget and the one decision the search takes whenever a job
// slot frees. Pure functions, free of processes and files, so that the rule is
// tested on hand-made rung results.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace runner {

// The [asha] table of a sweep file: budgets in optimizer steps, or with
// unit = "epochs" in whole epochs.
struct AshaSettings {
  bool enabled = false;
  long long min_budget = 0;
  long long max_budget = 0;
  long long eta = 3;
  bool epochs = false;
  // promotion = "certain": a point goes on only once no point still to report
  // at its rung can push it out of the rung's final top 1/eta.
  bool certain = false;
  const char* unit() const { return epochs ? "epochs" : "steps"; }
};

// The rungs' budgets: min_budget * eta^k below max_budget, then max_budget.
std::vector<long long> asha_rungs(const AshaSettings& asha);

// What the search knows of one point: its metric at each rung it finished
// (nullopt where the run reported none) and the rung it was last sent to.
struct RungPoint {
  std::vector<std::optional<double>> metrics;  // index = rung
  int target = -1;                             // -1: never started
  // The evaluation loss at each rung: equal metrics rank by it (lower first), so
  // that a rung where every point scores alike (all predicting the majority
  // class early in training) still promotes the points that learned most.
  std::vector<std::optional<double>> losses = {};
  // Out of the search: invalid, or failed and not run again. It counts as
  // reported without a metric at the rung it was sent to (rung 0 if none).
  bool dropped = false;
  // Points of one configuration (equal but for the sweep's replicate keys,
  // run.seed) share its index; -1: a configuration of its own.
  int configuration = -1;
  bool finished_target() const { return static_cast<int>(metrics.size()) > target; }
};

struct Promotion {
  size_t point = 0;  // index into the points given
  int rung = 0;      // the rung it goes on to
};

// The promotion ASHA makes when a slot frees: from the highest rung below the
// top that has one, the best point in that rung's top 1/eta (floor of its
// finished points / eta, best first, equal metrics by the lower loss, then in the order given) that is not
// promoted yet and is not running; nullopt when there is none (then a new
// point starts at the bottom rung). A point without a metric ranks last.
std::optional<Promotion> asha_promotion(const std::vector<RungPoint>& points, int rung_count, long long eta,
                                        bool higher_is_better);

// The promotion under promotion = "certain": successive halving's own
// decisions, each taken as soon as it cannot change. Rung 0 holds every point
// given, and rung k + 1 the top floor(n_k / eta) of rung k's n_k (fewer when
// fewer of them have a metric). A finished point of rung k with rank r (0 =
// best) among the points reported there goes on once r + pending < quota,
// pending being the points that may still report at rung k: even if every one
// of them ranked above it, it would stay in the rung's top. So the same points
// reach each rung as when every rung waits for all its points, and no rung
// waits for a point that can no longer change its decision. Highest rung first.
// With replicates the unit is the configuration: it reports at a rung when all
// its points have, ranks by their mean metric (then mean loss), and when it
// goes on, all its points do, one promotion each; the quota counts
// configurations.
std::optional<Promotion> certain_promotion(const std::vector<RungPoint>& points, int rung_count, long long eta,
                                           bool higher_is_better);

}  // namespace runner
