// Everything a run directory records, read back for reports and `runner ls`:
// summary.json, env.json, recipe.resolved.json and the events of metrics.jsonl
// grouped by kind. Reading never writes into the run directory.
#pragma once

#include "report/downsample.h"
#include "report/x_axis.h"
#include "run/env_record.h"
#include "run/run_search.h"  // the run directories a report or `runner ls` reads
#include "run/run_summary.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace runner {

struct RunHistory {
  std::string dir;
  XAxis x_axis = XAxis::Step;  // what the x of every series point counts
  RunSummary run_summary;  // summary.json, read by the run-directory model
  nlohmann::json summary = nlohmann::json::object();  // its record (empty when none)
  EnvRecord env;  // env.json, typed (run/env_record.h)
  nlohmann::json resolved = nlohmann::json::object();  // the resolved recipe
  nlohmann::json start = nlohmann::json::object();     // the first "start" event
  // The numeric fields of the "train" events ("loss", "lr", ...), each read as
  // a stream into a bounded series against x_axis: a run of millions of steps stays small.
  std::map<std::string, Downsampler> train_series;
  long long train_events = 0;
  nlohmann::json last_train = nlohmann::json::object();       // the newest "train" event
  nlohmann::json last_checkpoint = nlohmann::json::object();  // the newest "checkpoint" event
  // The metrics of the "eval" events, bounded the same way, with their names in
  // the order they first appear; the newest eval and the newest marked is_best.
  std::map<std::string, Downsampler> eval_series;
  std::vector<std::string> eval_metrics;
  nlohmann::json last_eval = nlohmann::json::object();
  nlohmann::json best_eval = nlohmann::json::object();
  // Where the run was interrupted and resumed: each "resume" event's step, its
  // place on x_axis (nullopt where the records cannot place it) and checkpoint.
  struct Resume {
    long long step = 0;
    std::optional<double> x;
    std::string checkpoint;
  };
  std::vector<Resume> resumes;

  std::string name() const;    // run.name, or the run folder's parent's name
  // summary's status ("running" without a summary); a run recorded as running
  // whose process is gone is "died", one whose heartbeat stopped elsewhere "stale".
  std::string status() const;
  std::string liveness() const;  // "running", "died" or "stale", for a run recorded as running
  std::string started_utc() const;  // env.json's started_utc, or ""
  long long step() const;      // the last step recorded
  long long total_steps() const;
  // summary.json's total wall seconds, or the newest event's elapsed_s where
  // that is later (a killed run's last events can follow its last heartbeat;
  // its resume counts them the same way).
  std::optional<double> wall_seconds() const;
  std::optional<double> latest_elapsed;  // the largest elapsed_s of metrics.jsonl's events
  std::optional<double> samples_per_s() const;  // the run's average, or the last interval's
  // The best evaluation: metric name ("eval.f1", whether the recipe wrote
  // "f1" or "eval.f1"), value and step; empty name when none.
  std::string best_metric;
  std::optional<double> best_value;
  std::optional<long long> best_step;
  std::optional<double> best_x;  // the best step on x_axis; nullopt where the records cannot place it
  // Lines of metrics.jsonl that could not be read (not JSON, bare NaN, binary
  // garbage, no "event"): how many, the first one's number, and whether the
  // only one is a last line without its newline (a run killed mid-write).
  long long damaged_lines = 0;
  long long first_damaged_line = 0;
  bool only_last_line_cut = false;
  // A warning naming metrics.jsonl, the first damaged line and how many were
  // skipped; nullopt when every line was read.
  std::optional<Diagnostic> damaged_lines_warning() const;
};

// "f1" and "eval.f1" both as "eval.f1": how every run names its best metric.
std::string eval_metric_label(const std::string& metric);

// Fields of an eval event that are bookkeeping, not metrics.
bool is_eval_bookkeeping(const std::string& key);

// A JSON record of a run or sweep; a file that is not valid JSON throws
// InputError naming it and the byte where it breaks.
nlohmann::json read_run_record(const std::string& path);

// Reads a run directory, its series against `x_axis`. A missing directory, one that is not a run directory,
// or a record that is not valid JSON throws InputError naming the file and
// what to pass instead. A line of metrics.jsonl that cannot be read is
// skipped and counted (damaged_lines_note says so).
RunHistory load_run_history(const std::string& dir, XAxis x_axis = XAxis::Step);

}  // namespace runner
