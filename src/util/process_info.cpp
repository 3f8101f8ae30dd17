#include "util/process_info.h"

#include "util/json_input.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace runner {
namespace {

std::string first_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// Field 22 of /proc/PID/stat; the command name (field 2) may hold spaces and
// parentheses, so the fields are counted after its closing parenthesis.
std::optional<long long> start_ticks_of(long long pid) {
  std::string stat = first_line_of("/proc/" + std::to_string(pid) + "/stat");
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  for (int n = 3; fields >> field; ++n)
    if (n == 22) return std::strtoll(field.c_str(), nullptr, 10);
  return std::nullopt;
}

}  // namespace

std::string host_name() {
  char name[256] = {0};
  return gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string("localhost");
}

ProcessIdentity current_process() {
  ProcessIdentity p;
  p.pid = static_cast<long long>(getpid());
  p.host = host_name();
  p.boot_id = first_line_of("/proc/sys/kernel/random/boot_id");
  p.start_ticks = start_ticks_of(p.pid).value_or(0);
  return p;
}

ProcessState process_state(const ProcessIdentity& owner) {
  const ProcessIdentity me = current_process();
  if (owner.host != me.host || owner.boot_id.empty() || me.boot_id.empty()) return ProcessState::Unknown;
  if (owner.boot_id != me.boot_id) return ProcessState::Gone;  // the machine restarted since
  std::optional<long long> ticks = start_ticks_of(owner.pid);
  if (!ticks) return ProcessState::Gone;
  // The same pid with another start time is a newer process that reused it.
  return owner.start_ticks == 0 || *ticks == owner.start_ticks ? ProcessState::Alive : ProcessState::Gone;
}

nlohmann::json process_json(const ProcessIdentity& p) {
  return {{"pid", p.pid}, {"host", p.host}, {"boot_id", p.boot_id}, {"start_ticks", p.start_ticks}};
}

std::optional<ProcessIdentity> process_from_json(const nlohmann::json& j) {
  ProcessIdentity p;
  p.pid = record_integer(j, "pid", 0);
  p.host = record_string(j, "host");
  p.boot_id = record_string(j, "boot_id");
  p.start_ticks = record_integer(j, "start_ticks", 0);
  if (p.pid <= 0 || p.host.empty()) return std::nullopt;
  return p;
}

}  // namespace runner
