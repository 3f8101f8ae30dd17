// Random and quasi-random search: the sweep file's [random] table declares a
// distribution per recipe key, and `samples` points are drawn from them, by
// independent uniform draws ("random") or the Halton sequence ("halton"),
// which covers the space more evenly for few samples. The draws depend only
// on sample_seed and the file: a sweep started again draws the same points,
// on every machine (a PRNG of integer arithmetic; sampled numbers are rounded
// to 4 significant digits, which also keeps point ids readable).
//
//   samples = 16
//   sampler = "halton"
//   [random]
//   "optimizer.lr" = { log_uniform = [1e-5, 1e-3] }
//   "optimizer.weight_decay" = { uniform = [0.0, 0.1] }
//   "data.train_batch_size" = { int = [8, 32] }
//   "model.hidden_dropout_prob" = { choice = [0.1, 0.2] }
#pragma once

#include "recipe/value.h"
#include "sweep/sweep_file.h"

#include <cstdint>
#include <string>
#include <vector>

namespace runner {

// The distribution names a [random] key may take, as the file writes them.
const std::vector<std::string>& distribution_names();

// Reads [random] into sweep.random and checks it against samples and the other
// axes: each range well formed (lo < hi, log_uniform above 0, int of whole
// numbers, a non-empty choice), samples >= 1 exactly when [random] is there,
// and no key both sampled and in [grid], [zip] or points.
void read_random_axes(const Value& root, SweepFile& sweep, Diagnostics& diags);

// The `samples` rows of sampled overrides, distinct, in draw order; one empty
// row when the sweep samples nothing. Fewer rows only when the space of int and
// choice keys holds fewer distinct points.
std::vector<std::vector<Assignment>> sampled_rows(const SweepFile& sweep);

// The Halton sequence's coordinate in `base` (a prime) of point `index` >= 1:
// the radical inverse, in [0, 1).
double radical_inverse(uint64_t index, uint32_t base);

}  // namespace runner
