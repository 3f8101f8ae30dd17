// A sweep file (TOML or YAML): a base recipe, the axes to vary (grid, zip,
// sampled ranges, explicit points), fixed overrides, and the metric that ranks the points.
// Its keys are declared once in sweep_file.cpp; schemas/sweep.schema.json is
// generated from them.
#pragma once

#include "recipe/value.h"
#include "registry/option.h"
#include "sweep/asha.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace runner {

// One recipe override: "optimizer.lr" = 3e-4, with where the sweep file said it.
struct Assignment {
  std::string key;
  Value value;
  std::string text() const;  // the value as a --set value: 0.0003, true, [a, b], text
};

// A grid or zip axis: one key and the values it takes.
struct Axis {
  std::string key;
  std::vector<Value> values;
  SourceLocation loc;
};

// A [random] key: the distribution its values are drawn from (sweep/sampling.h).
struct RandomAxis {
  std::string key;
  std::string distribution;    // "uniform", "log_uniform", "int" or "choice"
  double low = 0, high = 0;    // uniform, log_uniform, int: both ends included
  std::vector<Value> choices;  // choice
  SourceLocation loc;
};

struct SweepFile {
  std::string path;        // absolute
  std::string name;        // [name] or the file's stem
  std::string base;        // the base recipe, absolute
  std::string metric;      // "eval.f1"
  SourceLocation metric_loc;
  bool higher_is_better = true;
  std::string output_dir;  // sweep directories go to <output_dir>/<name>/
  std::vector<Assignment> set;
  std::vector<Axis> grid;
  std::vector<Axis> zip;
  std::vector<std::vector<Assignment>> points;
  std::vector<SourceLocation> point_locations;
  std::vector<RandomAxis> random;  // [random]: `samples` points drawn by `sampler`
  long long samples = 0;
  std::string sampler = "random";  // "random" or "halton"
  long long sample_seed = 0;
  // Keys whose values repeat one configuration (run.seed): aggregated, not ranked.
  std::vector<std::string> replicates;
  // [asha]: successive halving over the points instead of running each to the end.
  AshaSettings asha;
  SourceLocation asha_loc;
};

struct SweepLoad {
  std::optional<SweepFile> sweep;
  Diagnostics diags;
};

// The scalar keys of a sweep file.
const std::vector<OptionSpec>& sweep_options();
// draft-07 JSON Schema of a sweep file (what `runner sweep --schema` prints).
nlohmann::ordered_json sweep_schema();

// Reads and checks a sweep file: the schema, and the shape of each axis.
// `set_flags` ("KEY=VALUE", from `runner sweep --set`) join its [set] table.
// run.name, and run.output_dir beside the sweep's own output_dir, are refused
// wherever the file or a flag sets them: the sweep decides both for every point.
SweepLoad load_sweep_file(const std::string& path, const std::vector<std::string>& set_flags = {});

// Whether [grid], [zip] or a point varies `key`.
bool sweep_varies(const SweepFile& sweep, const std::string& key);
// Whether [random] samples `key`.
bool sweep_samples(const SweepFile& sweep, const std::string& key);

// "eval.f1" -> "f1"; metrics of eval events are named without the prefix.
std::string eval_metric_name(const std::string& metric);

}  // namespace runner
