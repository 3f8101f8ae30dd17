// What the sweep's schedulers (every point to the end, sweep/sweep_run.cpp; or
// successive halving, sweep/asha_run.h) share about one point's child process:
// its command line, how its exit reads as a ledger state, and the error its
// log ends with.
#pragma once

#include "sweep/expand.h"
#include "sweep/ledger.h"
#include "sweep/process.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

struct SweepFile;
struct SweepRunOptions;

// `runner run BASE --set ... --set run.output_dir=<sweep dir> --set run.name=<id>
// --set run.threads=T [--resume auto]`, then `extra` (ASHA's budget and stop).
std::vector<std::string> point_command(const SweepFile& sweep, const SweepPoint& p, const SweepRunOptions& options,
                                       bool resume, const std::vector<std::string>& extra = {});

// Completed on exit 0, interrupted when ended by a signal (or its exit code), else failed.
PointState state_of_exit(const ChildExit& e);

// The last error of a point's log ("error: ..." or "file:line:col: error: ...")
// with the hint under it; the log's last line when no line says error.
std::string error_from_log(const std::string& log_path);

// What a point that did not complete says of its end: the exit's own note (a
// Slurm job the controller lost), then its log's error.
std::string point_error(const ChildExit& e, const std::string& log_path);

// A point's varying keys -> values, as the ledger keeps them for readers.
nlohmann::json overrides_json(const SweepPoint& p);

}  // namespace runner
