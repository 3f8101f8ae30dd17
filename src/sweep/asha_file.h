// The [asha] table of a sweep file (successive halving, sweep/asha.h): its
// keys declared once, read with the place and the fix of every bad value, and
// what the base recipe must allow for each rung to be a point where a run can
// stop, be ranked and continue exactly. Torch-free.
#pragma once

#include "recipe/value.h"
#include "registry/option.h"
#include "sweep/sweep_file.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace runner {

// min_budget, max_budget, eta: the keys of [asha].
const std::vector<OptionSpec>& asha_options();
// The [asha] table's part of the sweep file's schema.
nlohmann::ordered_json asha_schema();

// Reads [asha] into sweep.asha: whole numbers, eta >= 2, 1 <= min_budget <=
// max_budget, no other key, and no sweep key that sets what the search decides
// (train.max_steps, train.epochs).
void read_asha(const Value& root, SweepFile& sweep, Diagnostics& diags);

// The --set that gives a point its whole length: train.max_steps=max_budget,
// or train.epochs=max_budget with unit = "epochs".
std::string asha_length_set(const AshaSettings& asha);

// What a point's resolved recipe must allow: an evaluation split (the rungs
// rank by it), no early stopping (a run that ends before its rung has no
// metric there), and every rung below the top an evaluation step of the whole
// run (train.eval_every divides min_budget), so that the stopped run is
// evaluated and best-tracked exactly as the run trained in one go.
void check_asha_recipe(const SweepFile& sweep, const nlohmann::json& resolved, Diagnostics& errors);

}  // namespace runner
