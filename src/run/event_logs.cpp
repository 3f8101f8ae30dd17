#include "run/event_logs.h"

#include "util/json_input.h"
#include "util/numbers.h"
#include "util/synced_file.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>

namespace fs = std::filesystem;

namespace runner {
namespace {

// Whether a metrics.jsonl line belongs to a step after `step`.
bool jsonl_after(const std::string& line, long long step) {
  std::string why;
  std::optional<nlohmann::json> j = try_parse_json(line, why);
  if (!j || !j->is_object()) return true;  // a line torn by a kill: drop it
  return j->contains("step") && (*j)["step"].is_number() && (*j)["step"].get<double>() > static_cast<double>(step);
}

// Whether a train.log line ("... train step=12/40 epoch=0 loss=...", or an
// older "train loss=... step=12") belongs to a step after `step`.
bool text_after(const std::string& line, long long step) {
  auto at = line.find(" step=");
  if (at == std::string::npos) return false;
  std::string digits = line.substr(at + 6, line.find_first_of(" /", at + 6) - (at + 6)), why;
  std::optional<long long> n = parse_integer(digits, why);
  return n && *n > step;
}

void cut_file(const std::string& path, long long step,
              bool (*after)(const std::string&, long long)) {
  std::ifstream in(path);
  if (!in) return;
  std::string kept, line;
  while (std::getline(in, line))
    if (!after(line, step)) kept += line + "\n";
  in.close();
  std::string tmp = path + ".tmp";
  write_file_synced(tmp, kept);
  fs::rename(tmp, path);
}

}  // namespace

double latest_elapsed_seconds(const RunPaths& paths) {
  // The newest lines are at the end, and a metrics file may be gigabytes: its last 64 KiB are read.
  std::ifstream in(paths.metrics(), std::ios::binary | std::ios::ate);
  if (!in) return 0.0;
  const std::streamoff size = in.tellg();
  const std::streamoff from = std::max<std::streamoff>(0, size - (64 << 10));
  in.seekg(from);
  std::string line;
  if (from > 0) std::getline(in, line);  // the part of a line the read began in
  double latest = 0.0;
  while (std::getline(in, line)) {
    std::string why;
    std::optional<nlohmann::json> event = try_parse_json(line, why);
    if (event && event->is_object()) latest = std::max(latest, number_at(*event, "elapsed_s").value_or(0.0));
  }
  return latest;
}

void cut_event_logs(const RunPaths& paths, long long step) {
  cut_file(paths.metrics(), step, jsonl_after);
  cut_file(paths.log(), step, text_after);
}

}  // namespace runner
