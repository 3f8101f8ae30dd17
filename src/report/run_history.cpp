#include "report/run_history.h"

#include "run/env_record.h"
#include "run/run_dir.h"
#include "run/run_search.h"
#include "run/run_summary.h"
#include "util/diagnostic.h"
#include "util/input_file.h"
#include "util/json_input.h"
#include "util/process_info.h"

#include <fmt/format.h>

#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>

namespace runner {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void not_a_run(const std::string& dir, const std::string& what) {
  throw InputError(make_error(SourceLocation{dir, 0, 0, ""}, "", what,
                              "pass a run directory written by `runner run` "
                              "(runs/<name>/<time>-<id>/) or a sweep directory"));
}

// Distinct numeric fields kept per kind of event (each is a chart): a record
// with a million made-up names must not make a million series.
constexpr size_t kMaxSeries = 64;

// Adds (x, y) to the series `key`; false when the series is new and there is no room.
bool add_point(std::map<std::string, Downsampler>& series, const std::string& key, double x, double y) {
  auto it = series.find(key);
  if (it == series.end()) {
    if (series.size() >= kMaxSeries) return false;
    it = series.emplace(key, Downsampler()).first;
  }
  it->second.add(x, y);
  return true;
}

// A train event's numbers go to their series at the event's x; only the newest event is kept whole.
void add_train_event(nlohmann::json e, std::optional<double> x, RunHistory& h) {
  ++h.train_events;
  for (const auto& [key, value] : e.items())
    if (x && key != "step" && value.is_number()) add_point(h.train_series, key, *x, value.get<double>());
  h.last_train = std::move(e);
}

// An eval event's metrics go to their series; the newest event and the newest
// best one (with its x) are kept whole (the best checkpoint of a run still going).
void add_eval_event(nlohmann::json e, std::optional<double> x, RunHistory& h, std::optional<double>& best_eval_x) {
  for (const auto& [key, value] : e.items()) {
    if (!x || !value.is_number() || is_eval_bookkeeping(key)) continue;
    bool is_new = !h.eval_series.count(key);
    if (add_point(h.eval_series, key, *x, value.get<double>()) && is_new) h.eval_metrics.push_back(key);
  }
  if (record_bool(e, "is_best", false)) h.best_eval = e, best_eval_x = x;
  h.last_eval = std::move(e);
}

// Reads the events of metrics.jsonl, placed on h.x_axis; a line that is not an
// event is counted, never fatal, so a run with damaged records still shows what
// it has. Returns the x of the newest best evaluation.
std::optional<double> read_events(const std::string& path, RunHistory& h) {
  std::optional<double> best_eval_x;
  if (!fs::exists(path)) return best_eval_x;
  XPlacer placer(h.x_axis, h.resolved);
  check_input_file({path, "", kMaxDataFileBytes, ""});
  std::ifstream in(path);
  std::string line, why;
  for (long long n = 1; read_bounded_line(in, line, path, n); ++n) {
    if (line.empty()) continue;
    std::optional<nlohmann::json> parsed = try_parse_json(line, why);
    bool event = parsed && parsed->is_object() && parsed->contains("event") && (*parsed)["event"].is_string();
    if (!event) {
      if (h.damaged_lines++ == 0) h.first_damaged_line = n;
      h.only_last_line_cut = h.damaged_lines == 1 && in.eof();  // no newline after it: cut off
      continue;
    }
    nlohmann::json& e = *parsed;
    const std::string kind = e["event"].get<std::string>();
    if (auto t = number_at(e, "elapsed_s")) h.latest_elapsed = std::max(h.latest_elapsed.value_or(*t), *t);
    placer.note(e);
    const std::optional<double> x = placer.x_of(e);  // before e is moved from
    if (kind == "train") add_train_event(std::move(e), x, h);
    else if (kind == "eval") add_eval_event(std::move(e), x, h, best_eval_x);
    else if (kind == "checkpoint") h.last_checkpoint = std::move(e);
    else if (kind == "start" && h.start.empty()) h.start = std::move(e);
    else if (kind == "resume") h.resumes.push_back({record_integer(e, "step", 0), x, record_string(e, "checkpoint")});
  }
  return best_eval_x;
}

// The best evaluation from summary.json, or from the last eval marked is_best
// while the run is still going.
void find_best_value(RunHistory& h) {
  nlohmann::json best = record_object(h.summary, "best");
  h.best_metric = record_string(best, "metric");
  if (h.best_metric.empty())
    h.best_metric = record_string(record_object(h.resolved, "train"), "metric_for_best");
  h.best_metric = eval_metric_label(h.best_metric);
  if (auto v = number_at(best, "value")) {
    h.best_value = v;
    if (auto s = number_at(best, "step")) h.best_step = static_cast<long long>(*s);
    return;
  }
  if (h.best_eval.empty()) return;
  h.best_step = record_integer(h.best_eval, "step", 0);
  std::string key = h.best_metric.rfind("eval.", 0) == 0 ? h.best_metric.substr(5) : h.best_metric;
  h.best_value = number_at(h.best_eval, key);
}

// The best evaluation from summary.json, or from the last eval marked is_best
// while the run is still going; on the x axis, the step itself, or the x of the
// eval event at that step.
void find_best(RunHistory& h, std::optional<double> best_eval_x) {
  find_best_value(h);
  if (!h.best_step) return;
  if (h.x_axis == XAxis::Step) h.best_x = static_cast<double>(*h.best_step);
  else if (record_integer(h.best_eval, "step", -1) == *h.best_step) h.best_x = best_eval_x;
}

}  // namespace

std::string eval_metric_label(const std::string& metric) {
  if (metric.empty() || metric.rfind("eval.", 0) == 0) return metric;
  return "eval." + metric;
}

bool is_eval_bookkeeping(const std::string& key) {
  // "examples_mm": a companion set's count (MNLI's mismatched dev set), no metric either.
  return key == "event" || key == "step" || key == "epoch" || key.rfind("examples", 0) == 0 || key == "is_best" ||
         key == "wall_time" || key == "elapsed_s";
}

nlohmann::json read_run_record(const std::string& path) {
  return read_json_document(path, "",
                            "the file is damaged or was cut short; the run's other records are "
                            "untouched, but this one has to be restored or the run left out");
}

RunHistory load_run_history(const std::string& dir, XAxis x_axis) {
  if (!fs::is_directory(dir)) not_a_run(dir, "no such directory");
  if (!looks_like_run_dir(dir)) not_a_run(dir, "not a run directory: it has neither summary.json nor env.json");
  RunPaths p{dir};
  RunHistory h;
  h.dir = dir;
  h.x_axis = x_axis;
  h.run_summary = read_run_summary(p);
  h.summary = h.run_summary.record;
  h.env = read_env_record_if_present(p);
  if (fs::exists(p.recipe_resolved())) h.resolved = read_run_record(p.recipe_resolved());
  if (!h.resolved.is_object()) h.resolved = nlohmann::json::object();
  std::optional<double> best_eval_x = read_events(p.metrics(), h);
  find_best(h, best_eval_x);
  return h;
}

std::optional<Diagnostic> RunHistory::damaged_lines_warning() const {
  if (damaged_lines == 0) return std::nullopt;
  int line = static_cast<int>(std::min<long long>(first_damaged_line, INT32_MAX));
  Diagnostic d = make_error(SourceLocation{RunPaths{dir}.metrics(), line, 0, {}}, "", "", "");
  d.severity = Severity::Warning;
  if (only_last_line_cut) {
    d.message = "the last line was cut off and is skipped";
    d.hint = "expected when the run was killed while writing it; nothing else was lost";
  } else {
    d.message = fmt::format("skipped {} line{} that {} not JSON events, the first at line {}", damaged_lines,
                            damaged_lines == 1 ? "" : "s", damaged_lines == 1 ? "is" : "are", line);
    d.hint = "the charts show the other lines; a line with bare NaN or Infinity, binary bytes or no \"event\" "
             "was not written by `runner run`";
  }
  return d;
}

std::string RunHistory::name() const {
  std::string n = record_string(record_object(resolved, "run"), "name");
  return n.empty() ? fs::path(dir).lexically_normal().parent_path().filename().string() : n;
}

std::string RunHistory::status() const { return run_status(RunPaths{dir}, run_summary, !env.record.empty()); }

std::string RunHistory::liveness() const { return run_summary.liveness(); }

std::string RunHistory::started_utc() const { return env.started_utc; }

long long RunHistory::step() const {
  if (auto s = number_at(summary, "global_step")) return static_cast<long long>(*s);
  long long last = 0;
  for (const auto* e : {&last_train, &last_eval, &last_checkpoint}) last = std::max(last, record_integer(*e, "step", 0));
  return last;
}

long long RunHistory::total_steps() const {
  if (auto s = number_at(summary, "total_steps")) return static_cast<long long>(*s);
  return record_integer(start, "total_steps", 0);
}

std::optional<double> RunHistory::wall_seconds() const {
  const std::optional<double> recorded = number_at(summary, "total_wall_seconds");
  if (!recorded) return latest_elapsed;
  if (!latest_elapsed) return recorded;
  return std::max(*recorded, *latest_elapsed);
}

std::optional<double> RunHistory::samples_per_s() const {
  if (auto v = number_at(summary, "samples_per_s")) return v;
  if (train_events > 0) return number_at(last_train, "samples_per_s");
  return std::nullopt;
}

}  // namespace runner
