// Expanding a sweep file into its points: the cartesian product of the grid
// axes times the zip rows, then the explicit points; each point gets an id that
// is a readable slug of its overrides plus a stable short hash of all of them.
#pragma once

#include "sweep/sweep_file.h"

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

Expansion expand_sweep(const SweepFile& sweep);

// The id of a point: the same overrides give the same id on every machine.
std::string point_id(const std::vector<Assignment>& varying,
                     const std::vector<Assignment>& overrides);

}  // namespace runner
