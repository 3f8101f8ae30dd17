// Which process owns a run, and whether it is still there. A pid alone is
// reused once its process ends, so the identity adds the host, the boot and
// the process's start time (clock ticks after boot, /proc/PID/stat field 22).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace runner {

struct ProcessIdentity {
  long long pid = 0;
  std::string host;
  std::string boot_id;      // /proc/sys/kernel/random/boot_id; empty when unknown
  long long start_ticks = 0;  // 0 when unknown
};

ProcessIdentity current_process();
std::string host_name();

// Alive: this host and boot, and the pid runs with the same start time.
// Gone: this host, and the process (or the boot it ran in) has ended.
// Unknown: another host, or nothing to compare with; only a heartbeat can tell.
enum class ProcessState { Alive, Gone, Unknown };
ProcessState process_state(const ProcessIdentity& owner);

nlohmann::json process_json(const ProcessIdentity& p);
// nullopt when the record has no usable pid and host (an older run, or an edited file).
std::optional<ProcessIdentity> process_from_json(const nlohmann::json& j);

}  // namespace runner
