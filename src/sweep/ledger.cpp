#include "sweep/ledger.h"

#include "run/run_dir.h"
#include "run/run_summary.h"
#include "util/json_input.h"

#include <filesystem>

namespace runner {

std::string state_name(PointState s) {
  switch (s) {
    case PointState::Pending: return "pending";
    case PointState::Running: return "running";
    case PointState::Completed: return "completed";
    case PointState::Failed: return "failed";
    case PointState::Interrupted: return "interrupted";
    case PointState::Stopped: return kStoppedBySearch;
  }
  return "pending";
}

PointState parse_state(const std::string& name) {
  for (PointState s : {PointState::Running, PointState::Completed, PointState::Failed,
                       PointState::Interrupted, PointState::Stopped})
    if (state_name(s) == name) return s;
  return PointState::Pending;
}

std::string ledger_path(const std::string& sweep_dir) { return sweep_dir + "/sweep_ledger.json"; }

void Ledger::save() const {
  nlohmann::json points_json = nlohmann::json::object();
  for (const auto& [id, r] : points)
    points_json[id] = {{"state", state_name(r.state)},   {"attempts", r.attempts},
                       {"last_error", r.last_error},     {"last_exit_code", r.last_exit_code}, {"pid", r.pid},
                       {"updated_utc", r.updated_utc},   {"overrides", r.overrides}};
  for (const auto& [id, r] : points)
    if (r.slurm_job > 0) points_json[id]["slurm_job"] = r.slurm_job;
  for (const auto& [id, r] : points) {
    if (r.rung < 0) continue;
    auto numbers = [](const std::vector<std::optional<double>>& values) {
      nlohmann::json out = nlohmann::json::array();
      for (const auto& m : values) out.push_back(m ? nlohmann::json(*m) : nlohmann::json());
      return out;
    };
    points_json[id]["rung"] = r.rung;
    points_json[id]["rung_metrics"] = numbers(r.rung_metrics);
    points_json[id]["rung_losses"] = numbers(r.rung_losses);
  }
  write_json_atomic(path, {{"format", "runner-sweep-ledger"}, {"version", 1},
                           {"sweep", sweep_name}, {"sweep_file", sweep_file},
                           {"points", points_json}});
}

Ledger load_ledger(const std::string& path) {
  Ledger ledger;
  ledger.path = path;
  if (!std::filesystem::exists(path)) return ledger;
  nlohmann::json j = read_json_file(path);
  ledger.sweep_name = record_string(j, "sweep", "");
  ledger.sweep_file = record_string(j, "sweep_file", "");
  nlohmann::json points = record_object(j, "points");
  for (const auto& [id, p] : points.items()) {
    PointRecord r;
    r.state = parse_state(record_string(p, "state", "pending"));
    r.attempts = record_integer(p, "attempts", 0);
    r.last_error = record_string(p, "last_error", "");
    r.last_exit_code = record_integer(p, "last_exit_code", 0);
    r.updated_utc = record_string(p, "updated_utc", "");
    r.pid = record_integer(p, "pid", 0);
    r.slurm_job = record_integer(p, "slurm_job", 0);
    r.overrides = record_object(p, "overrides");
    r.rung = static_cast<int>(record_integer(p, "rung", -1));
    for (const auto& m : record_array(p, "rung_metrics"))
      r.rung_metrics.push_back(m.is_number() ? std::optional<double>(m.get<double>()) : std::nullopt);
    for (const auto& m : record_array(p, "rung_losses"))
      r.rung_losses.push_back(m.is_number() ? std::optional<double>(m.get<double>()) : std::nullopt);
    ledger.points[id] = std::move(r);
  }
  return ledger;
}

}  // namespace runner
