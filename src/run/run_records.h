// The records a run keeps next to its checkpoints, free of LibTorch: the recipe
// as given and resolved, what a resume must compare, and the event logs cut back
// to a checkpoint when a run continues.
#pragma once

#include "recipe/recipe.h"
#include "run/run_dir.h"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace runner {

// The recipe file (and every file it extends) copied byte for byte:
// recipe.given.<ext> and recipe.given.d/<name> for extended files.
void copy_given_recipe(const Recipe& recipe, const RunPaths& paths);
// recipe.resolved.json: every option with its default, paths absolute.
void write_resolved_recipe(const Recipe& recipe, const RunPaths& paths);
nlohmann::json read_json_file(const std::string& path);  // throws InputError naming the file

// One difference between what a run was started with and what it resumes with.
struct RunChange {
  std::string key;  // "train.epochs", or "content_sha256./path/to/train.tsv"
  std::string before, after;  // JSON text; "(absent)" when missing on one side
};

// Key-by-key differences of two resolved recipes.
std::vector<RunChange> recipe_changes(const nlohmann::json& before, const nlohmann::json& after);
// Differences of two path -> sha256 maps.
std::vector<RunChange> content_changes(const nlohmann::json& before, const nlohmann::json& after);

// Throws InputError showing every change not named in `allowed` (a key, or a
// prefix of keys such as "train" or "content_sha256").
void check_changes(const std::vector<RunChange>& changes, const std::vector<std::string>& allowed,
                   const std::string& run_dir);

// Before a resume reads or appends to a run's own records (summary.json,
// recipe.resolved.json, env.json, metrics.jsonl, train.log): each that exists
// is a regular file of its own. A directory would fail half-way through the
// rewrites, a FIFO would block the read or the append forever, and a symbolic
// link would send the appends elsewhere; throws InputError naming the first.
void require_own_records(const RunPaths& paths);

// <dir>/manifest.json listing each file of `dir` with its size and sha256, in
// a checkpoint's format (train/checkpoint_io.h, verify_checkpoint checks it):
// final/ gets one, so that a weight file changed after the run is refused.
void write_folder_manifest(const std::string& dir);

// The largest elapsed_s of metrics.jsonl's last lines (0 when none): how long the
// run's sessions have run by its events, which a session killed between two
// heartbeats outlived in summary.json.
double latest_elapsed_seconds(const RunPaths& paths);

// Drops the events of steps after `step` from metrics.jsonl and train.log, so
// that a run resumed from the checkpoint of `step` appends no duplicated steps.
void cut_event_logs(const RunPaths& paths, long long step);

// What `runner resume` needs to load the recipe again, kept in env.json.
struct RecipeOrigin {
  std::string path;                    // absolute
  std::vector<std::string> overrides;  // --set values, in order
};
nlohmann::json origin_json(const RecipeOrigin& origin);
RecipeOrigin origin_from_env(const nlohmann::json& env, const std::string& env_path);

// The newest run directory of `run_name` whose summary does not say completed,
// or empty.
std::string newest_unfinished_run(const std::string& output_dir, const std::string& run_name);

// Where a resumed session starts: the newest checkpoint that verifies (each
// newer one that does not is named in a warning), or step 0 when there is none.
struct ResumePoint {
  std::string checkpoint;  // empty: from step 0
  long long step = 0;
  std::vector<std::string> warnings;
};
ResumePoint find_resume_point(const RunPaths& paths);

// What env.json records of a session.
struct SessionRecord {
  bool resuming = false;
  RecipeOrigin origin;
  std::vector<std::string> command_line;
  std::vector<std::string> hashed_files;  // data and tokenizer files
  long long seed = 0;
  int threads = 0;
  std::string device;
};
// Writes env.json for a new run, or adds the resume to it.
void record_environment(const RunPaths& paths, const SessionRecord& record);

// summary.json: the status and wall time of the run, with whatever the session
// put in `summary`. Each session of a run (the first and every resume) is one
// of its "segments"; wall_seconds is this session's, total_wall_seconds their sum.
// While the status is "running", a heartbeat thread rewrites the file every
// heartbeat_seconds() with the owning process (pid, host, boot, start time),
// the time and the wall so far, so that a reader can tell a run that is going
// from one whose process is gone (kill -9, a lost node), and a resume after a
// kill -9 still counts the killed session's time. Only the primary process writes it.
class SummaryWriter {
 public:
  SummaryWriter(RunPaths run, bool primary, bool resuming);
  ~SummaryWriter();
  SummaryWriter(const SummaryWriter&) = delete;
  SummaryWriter& operator=(const SummaryWriter&) = delete;

  void write(const std::string& status);
  // The wall seconds of the run's earlier sessions (the events' elapsed_s starts there).
  double previous_wall() const { return previous_wall_; }
  double wall_seconds() const;  // this session's so far
  // Makes the earlier sessions' wall cover `logged`, the latest elapsed_s they
  // logged: the session before, killed before a heartbeat, is recorded with a few
  // microseconds, and this session's elapsed_s, which starts at previous_wall(),
  // would run backwards. The difference is added to that session's segment.
  void cover_logged_time(double logged);
  // No more writes from the heartbeat (before a refused run's directory is removed).
  void stop_heartbeat();
  nlohmann::json summary = nlohmann::json::object();

 private:
  void stamp(nlohmann::json& doc) const;
  void beat();

  RunPaths paths_;
  bool enabled_ = true;
  double heartbeat_every_;  // RUNNER_HEARTBEAT_SECONDS, read once
  nlohmann::json previous_segments_ = nlohmann::json::array();
  double previous_wall_ = 0.0;
  double started_ = 0.0;  // steady clock seconds at this session's start
  std::string started_utc_;
  std::mutex mutex_;       // the file and last_written_
  std::condition_variable wake_;
  bool stopping_ = false;
  nlohmann::json last_written_;
  std::thread heartbeat_;
};

// RUNNER_HEARTBEAT_SECONDS (default 30): how often a running run's summary.json is
// rewritten. Throws InputError naming the variable when it is not a number of
// seconds in [0.1, 3600].
double heartbeat_seconds();

}  // namespace runner
