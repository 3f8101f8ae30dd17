#include "run/run_summary.h"

#include "run/run_lock.h"
#include "util/json_input.h"

#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <filesystem>

namespace runner {
namespace fs = std::filesystem;
namespace {

// Seconds from an ISO time "2024-05-01T12:00:00Z" to now; nullopt when it is not one.
std::optional<double> seconds_since(const std::string& utc) {
  std::tm tm{};
  const char* end = strptime(utc.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (!end || *end != '\0') return std::nullopt;
  return std::difftime(std::time(nullptr), timegm(&tm));
}

}  // namespace

RunSummary summary_from_record(nlohmann::json doc) {
  RunSummary s;
  s.present = true;
  if (!doc.is_object()) return s;
  s.record = std::move(doc);
  const auto status = s.record.find("status");
  s.status_not_a_string = status != s.record.end() && !status->is_string();
  s.status = record_string(s.record, "status");
  s.owner = process_from_json(record_object(s.record, "process"));
  s.heartbeat_utc = record_string(s.record, "heartbeat_utc");
  s.heartbeat_every_s = number_at(s.record, "heartbeat_every_s").value_or(30.0);
  return s;
}

std::string RunSummary::liveness() const {
  if (!owner) return "running";
  ProcessState state = process_state(*owner);
  if (state == ProcessState::Gone) return "died";
  if (state == ProcessState::Alive) return "running";
  std::optional<double> since = seconds_since(heartbeat_utc);
  const double limit = std::max(3 * heartbeat_every_s, 60.0);
  // A heartbeat from the future (an edited file, a wrong clock) proves nothing either.
  if (since && *since < -limit) return "stale";
  return since && *since > limit ? "stale" : "running";
}

RunSummary read_run_summary(const RunPaths& paths) {
  const std::string path = paths.summary();
  std::error_code ec;
  RunSummary none;
  none.path = path;
  if (!fs::exists(path, ec)) return none;
  RunSummary s = summary_from_record(
      read_json_document(path, "",
                         "the file is damaged or was cut short; the run's other records are untouched, but this "
                         "one has to be restored or the run left out"));
  s.path = path;
  return s;
}

std::optional<RunSummary> read_run_summary_if_readable(const RunPaths& paths) {
  try {
    RunSummary s = read_run_summary(paths);
    if (s.present) return s;
  } catch (const std::exception&) {
  }
  return std::nullopt;  // none yet (a run killed early), or unreadable
}

bool has_run_summary(const RunPaths& paths, std::error_code& ec) {
  return fs::is_regular_file(paths.summary(), ec);
}

std::string run_status(const RunPaths& paths, const RunSummary& summary, bool has_env) {
  RunOwner owner = run_owner(paths.dir);
  if (owner == RunOwner::Live) return "running";
  if (owner == RunOwner::NotALock) return "unknown";
  if (summary.status_not_a_string) return "unknown";
  std::string recorded = summary.status.empty() ? (has_env ? "running" : "unknown") : summary.status;
  // An early stop is a completed run (sweeps, compare and resume treat it as
  // one); only what a person reads says why it ended before its last step.
  auto early = summary.record.find("stopped_early");
  if (recorded == "completed" && early != summary.record.end() && *early == true) return "early_stopped";
  if (recorded != "running") return recorded;
  return owner == RunOwner::None ? "died" : summary.liveness();
}

}  // namespace runner
