// summary.json read back: the one place the file is parsed, and what its
// status and heartbeat mean. The run's own sessions write it (SummaryWriter,
// run/summary_writer.h); resume, `--resume auto`, the owner lock, `runner ls`,
// reports and sweeps read it here. Free of LibTorch.
#pragma once

#include "run/run_dir.h"
#include "util/process_info.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <system_error>

namespace runner {

// The status of a run that `runner run --stop-at-step` ended at a search's rung
// (a sweep's successive halving): not failed, not interrupted, resumable.
inline constexpr const char* kStoppedBySearch = "stopped_by_search";

struct RunSummary {
  std::string path;      // <run>/summary.json
  bool present = false;  // the file exists (and was read)
  // The whole record as written: an object, empty when there is none or the
  // file holds something else. Its other fields (global_step, best, final ...)
  // are read from here.
  nlohmann::json record = nlohmann::json::object();
  // "running", "completed", "interrupted", "failed", "stopped_by_search"; empty
  // when none is recorded.
  std::string status;
  bool status_not_a_string = false;  // an edited status: neither running nor done
  // The process that last wrote a running summary (pid, host, boot, start time).
  std::optional<ProcessIdentity> owner;
  std::string heartbeat_utc;
  double heartbeat_every_s = 30.0;

  bool completed() const { return status == "completed"; }
  // The status as recorded, "unknown" when none is (or it is not a string).
  std::string recorded_status() const { return status.empty() ? "unknown" : status; }
  // For a summary that says running: "running" while its process is there (on
  // this host the process itself is asked; elsewhere a heartbeat missed three
  // times, at least a minute, makes it "stale"), "died" when it is gone. Older
  // records, with no owner, stay "running".
  std::string liveness() const;
};

// Reads <run>/summary.json; an absent file gives present = false. A file that is
// not valid JSON (torn, garbled) throws InputError naming it and the byte
// where it breaks.
RunSummary read_run_summary(const RunPaths& paths);
// The same, where an unreadable summary counts as none: nullopt when it is
// absent or cannot be read.
std::optional<RunSummary> read_run_summary_if_readable(const RunPaths& paths);

// A summary record already parsed (a sweep's baseline keeps a run's status
// and results in a file of its own).
RunSummary summary_from_record(nlohmann::json record);

// Whether the run has a summary.json that is a regular file; `ec` says why a
// folder could not be looked into.
bool has_run_summary(const RunPaths& paths, std::error_code& ec);

// The run's status as `runner ls` and reports show it. The owner lock
// (run/run_lock.h) is asked first: a process holding it is the run's trainer
// whatever summary.json says, and a lock nobody holds means a recorded
// "running" outlived its process. A status that is not a string, or a lock
// file that is a link or a FIFO, reads as "unknown"; with no summary, a run
// with env.json is "running" (its first summary not yet written). A completed
// run that early stopping ended is "early_stopped" (summary.json keeps
// "completed" beside "stopped_early": true).
std::string run_status(const RunPaths& paths, const RunSummary& summary, bool has_env);

}  // namespace runner
