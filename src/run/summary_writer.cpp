// summary.json while a session runs: the heartbeat and the segments of the
// run's sessions (run/summary_writer.h).
#include "run/summary_writer.h"

#include "run/run_dir.h"
#include "run/run_summary.h"
#include "util/diagnostic.h"
#include "util/json_input.h"
#include "util/process_info.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace runner {

namespace {

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The segments of the sessions before this one; a summary written before
// segments were recorded counts as one segment of its total.
nlohmann::json previous_segments(const RunPaths& paths) {
  std::optional<RunSummary> summary = read_run_summary_if_readable(paths);
  if (!summary) return nlohmann::json::array();  // none yet, or unreadable: nothing to add up
  const nlohmann::json& old = summary->record;
  nlohmann::json segments = nlohmann::json::array();
  for (auto s : record_array(old, "segments")) {
    if (!s.is_object()) continue;
    // Still "running" when the next session starts: its process ended without a word (kill -9).
    if (record_string(s, "status") == "running") s["status"] = "died";
    segments.push_back(s);
  }
  if (segments.empty() && number_at(old, "total_wall_seconds"))
    segments.push_back({{"wall_seconds", *number_at(old, "total_wall_seconds")},
                        {"status", record_string(old, "status")}});
  return segments;
}

}  // namespace

// Under 0.1 s the summary would be rewritten without pause; past an hour a
// reader would call a live run stale long before it heard from it, and past
// about 292 years the wait's clock overflows and never wakes.
constexpr double kMinHeartbeatSeconds = 0.1, kMaxHeartbeatSeconds = 3600.0;

double heartbeat_seconds() {
  const char* text = std::getenv("RUNNER_HEARTBEAT_SECONDS");
  if (!text || !*text) return 30.0;  // unset, or set to nothing
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text, &end);
  // strtod also reads hexadecimal ("0x10"), which no other number setting takes.
  const bool number = *end == '\0' && errno == 0 && !std::strpbrk(text, "xX");
  if (number && v >= kMinHeartbeatSeconds && v <= kMaxHeartbeatSeconds) return v;
  throw InputError(make_error(SourceLocation{{}, 0, 0, "RUNNER_HEARTBEAT_SECONDS"}, "",
                              fmt::format("expected a number of seconds in [{}, {}], found \"{}\"; nothing "
                                          "was run",
                                          kMinHeartbeatSeconds, kMaxHeartbeatSeconds, text),
                              "unset it for a heartbeat every 30 s (unset RUNNER_HEARTBEAT_SECONDS)"));
}

SummaryWriter::SummaryWriter(RunPaths run, bool primary, bool resuming)
    : paths_(std::move(run)), enabled_(primary), heartbeat_every_(heartbeat_seconds()), started_(steady_seconds()),
      started_utc_(utc_timestamp()) {
  if (!resuming || !enabled_) return;
  previous_segments_ = previous_segments(paths_);
  for (const auto& s : previous_segments_) previous_wall_ += number_at(s, "wall_seconds").value_or(0.0);
}

SummaryWriter::~SummaryWriter() { stop_heartbeat(); }

void SummaryWriter::cover_logged_time(double logged) {
  if (!enabled_ || !std::isfinite(logged) || logged <= previous_wall_) return;
  if (previous_segments_.empty()) previous_segments_.push_back({{"wall_seconds", 0.0}, {"status", "died"}});
  nlohmann::json& last = previous_segments_.back();
  last["wall_seconds"] = number_at(last, "wall_seconds").value_or(0.0) + (logged - previous_wall_);
  previous_wall_ = logged;
}

double SummaryWriter::wall_seconds() const { return steady_seconds() - started_; }

// What changes with every write: the time, the owner, the walls.
void SummaryWriter::stamp(nlohmann::json& doc) const {
  const double wall = wall_seconds();
  doc["run_dir"] = paths_.dir;
  doc["updated_utc"] = utc_timestamp();
  doc["heartbeat_utc"] = doc["updated_utc"];
  doc["heartbeat_every_s"] = heartbeat_every_;
  doc["process"] = process_json(current_process());
  doc["wall_seconds"] = wall;
  doc["total_wall_seconds"] = previous_wall_ + wall;
  nlohmann::json segments = previous_segments_;
  segments.push_back({{"started_utc", started_utc_}, {"wall_seconds", wall}, {"status", doc["status"]},
                      {"pid", doc["process"]["pid"]}, {"host", doc["process"]["host"]}});
  doc["segments"] = std::move(segments);
}

void SummaryWriter::write(const std::string& status) {
  if (!enabled_) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    last_written_ = summary;
    last_written_["status"] = status;
    stamp(last_written_);
    write_json_atomic(paths_.summary(), last_written_);
  }
  if (status != "running") stop_heartbeat();
  else if (!heartbeat_.joinable()) heartbeat_ = std::thread([this] { beat(); });
}

// Rewrites the last summary with a fresh time and wall until stopped. A write
// that fails (a full disk) is tried again at the next beat; training goes on.
void SummaryWriter::beat() {
  const auto every = std::chrono::duration<double>(heartbeat_every_);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, every, [this] { return stopping_; })) {
    try {
      stamp(last_written_);
      write_json_atomic(paths_.summary(), last_written_);
    } catch (const std::exception&) {
    }
  }
}

void SummaryWriter::stop_heartbeat() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
}

}  // namespace runner
