// The sweep ledger: <sweep dir>/sweep_ledger.json records each point's state,
// attempts and last error. Only the sweep process that holds the sweep's lock
// writes it, and every write replaces the file atomically (temporary file,
// fsync, rename), so a killed sweep leaves the last complete ledger behind.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <vector>
#include <string>

namespace runner {

// Stopped: ended at a rung of successive halving and not promoted (while the
// search runs it may still be; when it ends, it was stopped by the search).
enum class PointState { Pending, Running, Completed, Failed, Interrupted, Stopped };
std::string state_name(PointState s);  // "pending", ...
PointState parse_state(const std::string& name);  // unknown names read as pending

struct PointRecord {
  PointState state = PointState::Pending;
  int attempts = 0;
  std::string last_error;
  int last_exit_code = 0;
  long pid = 0;  // the process running the point while state is running
  long slurm_job = 0;  // with --slurm: the job running the point while state is running
  std::string updated_utc;
  nlohmann::json overrides = nlohmann::json::object();  // key -> value, for readers
  // Successive halving only: the rung the point was last sent to (-1: none)
  // and the sweep metric at each rung it finished (null where none was reported).
  int rung = -1;
  std::vector<std::optional<double>> rung_metrics;
  std::vector<std::optional<double>> rung_losses;  // the evaluation loss there (the tie-break)
};

struct Ledger {
  std::string path;
  std::string sweep_name;
  std::string sweep_file;
  std::map<std::string, PointRecord> points;  // by point id

  void save() const;  // atomic
};

std::string ledger_path(const std::string& sweep_dir);
// The ledger at `path`, or an empty one when there is none yet; a ledger that
// is not valid JSON throws InputError naming the file.
Ledger load_ledger(const std::string& path);

}  // namespace runner
