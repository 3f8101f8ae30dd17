// Expanding a sweep file into its points: the cartesian product of the grid
// axes times the zip rows and the sampled rows, then the explicit points; each point gets an id that
// is a readable slug of its overrides plus a stable short hash of all of them.
#pragma once

#include "sweep/sweep_file.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace runner {

struct SweepPoint {
  std::string id;                     // "lr-0.0003_train_batch_size-16-1a2b3c4d"
  std::vector<Assignment> varying;    // what this point changes (axes or explicit point)
  std::vector<Assignment> overrides;  // the sweep's [set] then `varying`: what the run gets
  std::vector<std::string> set_args() const;  // overrides as "key=value" for --set
};

struct Expansion {
  std::vector<SweepPoint> points;
  Diagnostics diags;  // empty axes, duplicate points, a key given twice in one point
};

// Past this many points a sweep is refused unless --max-points raises the limit.
constexpr long long kDefaultMaxPoints = 10000;

// How many points expand_sweep makes at most, counted without making them: the
// grid axes' sizes multiplied, times the zip rows and the samples, plus the
// explicit points.
// nullopt when the count does not fit in 64 bits.
std::optional<uint64_t> count_points(const SweepFile& sweep);

// The points; none, with an error naming the count and the fix, when there
// would be more than `max_points`.
Expansion expand_sweep(const SweepFile& sweep, long long max_points = kDefaultMaxPoints);

// The id of a point: the same overrides give the same id on every machine.
std::string point_id(const std::vector<Assignment>& varying,
                     const std::vector<Assignment>& overrides);

}  // namespace runner
