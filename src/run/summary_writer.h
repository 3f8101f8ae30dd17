// summary.json as the run's sessions write it, with the heartbeat that tells
// a reader (run/run_summary.h) a live run from a dead one. Free of LibTorch.
#pragma once

#include "run/run_dir.h"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace runner {

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
