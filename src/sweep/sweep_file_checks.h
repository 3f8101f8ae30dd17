// The sweep file's structural checks, before its values are read: a table with
// the required keys, no unknown key, each key of its type, and no recipe key
// that the sweep itself decides (a point's run name and folder). Torch-free.
#pragma once

#include "recipe/value.h"
#include "sweep/sweep_file.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

// The tables that hold overrides: keys are recipe keys ("optimizer.lr"), quoted
// or written as nested tables.
struct SweepTableKey {
  const char* name;
  const char* doc;
  nlohmann::ordered_json leaf;  // what a leaf value must be
};
const std::vector<SweepTableKey>& sweep_table_keys();

// A table holding at least the required keys, each scalar a string, set/grid/zip
// tables and points a list; an empty file or a lone scalar says so.
void check_sweep_shape(const Value& root, const std::string& path, Diagnostics& diags);
// Every top-level key is a sweep key, else the closest one is suggested.
void check_sweep_known_keys(const Value& root, Diagnostics& diags);
// run.name anywhere, and run.output_dir beside the sweep's own output_dir, are refused.
void check_keys_the_sweep_sets(const Value& root, const SweepFile& sweep, Diagnostics& diags);

}  // namespace runner
