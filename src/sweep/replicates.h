// Replicates: swept keys whose values repeat one configuration (run.seed), as
// seeds are for fine-tuning runs. Points that differ only in them form one
// configuration, reported as mean, sd and n of the sweep metric and ranked by
// the mean instead of point by point.
#pragma once

#include "recipe/value.h"
#include "sweep/expand.h"
#include "sweep/summary.h"

#include <string>
#include <vector>

namespace runner {

// The sweep file's `replicates = "run.seed, data.seed"` as keys.
std::vector<std::string> replicate_keys(const std::string& text);

// Each replicate key must be one the sweep varies ([grid], [zip] or points).
void check_replicates(const Value& root, const SweepFile& sweep, Diagnostics& diags);

// The configurations of `table`'s points over `replicates`, best mean first
// (in `table`'s direction), then those with no completed point.
std::vector<ConfigurationRow> aggregate_replicates(const SweepTable& table,
                                                   const std::vector<std::string>& replicates);

// Each point's configuration index, numbered in the order of first
// appearance: points whose varied keys other than `replicates` are equal share
// one. Without replicates every point is -1, a configuration of its own.
std::vector<int> configuration_indices(const std::vector<SweepPoint>& points,
                                       const std::vector<std::string>& replicates);

// Mean and sample standard deviation (n - 1); sd is none below 2 values.
struct MeanSd {
  std::optional<double> mean, sd;
};
MeanSd mean_and_sd(const std::vector<double>& values);

}  // namespace runner
