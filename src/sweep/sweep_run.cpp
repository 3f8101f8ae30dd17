#include "sweep/sweep_run.h"

#include "data/dataset.h"
#include "recipe/recipe.h"
#include "registry/registry.h"
#include "run/run_dir.h"
#include "run/run_search.h"
#include "run/run_summary.h"
#include "sweep/asha_file.h"
#include "sweep/asha_run.h"
#include "sweep/point_command.h"
#include "sweep/point_processes.h"
#include "sweep/process.h"
#include "sweep/slurm_jobs.h"
#include "sweep/summary.h"
#include "util/json_input.h"
#include "util/numbers.h"
#include "util/suggest.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <thread>

namespace runner {
namespace fs = std::filesystem;

std::string sweep_dir_of(const SweepFile& sweep) {
  return fs::absolute(fs::path(sweep.output_dir) / sweep.name).lexically_normal().string();
}

std::vector<std::string> produced_metrics(const nlohmann::json& data_section) {
  std::string name = data_section.at("dataset").get<std::string>();
  auto dataset = instantiate<DatasetFactory>(Kind::Dataset, name, data_section);
  std::vector<std::string> out = {"eval.loss"};
  for (const auto& m : dataset->info().metrics) out.push_back("eval." + m);
  return out;
}

namespace {

// The sweep ranks its points by a metric every run must produce: the loss and
// the dataset's metrics. A typo would otherwise run every point and rank none.
void check_metric(const SweepFile& sweep, const Recipe& recipe, Diagnostics& errors) {
  std::vector<std::string> known = produced_metrics(recipe.section("data"));
  std::string metric = sweep.metric.rfind("eval.", 0) == 0 ? sweep.metric : "eval." + sweep.metric;
  if (std::find(known.begin(), known.end(), metric) != known.end()) return;
  std::string close = did_you_mean(sweep.metric, known);
  errors.push_back(make_error(
      sweep.metric_loc, "metric",
      fmt::format("expected a metric that the runs of {} produce ({}), found \"{}\"",
                  recipe.section("data").at("dataset").get<std::string>(), join(known), sweep.metric),
      close.empty() ? "name one of those metrics" : close));
}

}  // namespace

Diagnostics validate_point(const SweepFile& sweep, const SweepPoint& point, const Capabilities& caps) {
  std::vector<std::string> args = point.set_args();
  if (sweep.asha.enabled) args.push_back(asha_length_set(sweep.asha));
  RecipeLoad load = load_recipe(RecipeRequest{sweep.base, args, true, caps}, registry());
  Diagnostics errors;
  for (auto& d : load.diags)
    if (d.severity == Severity::Error) errors.push_back(std::move(d));
  if (load.recipe) check_metric(sweep, *load.recipe, errors);
  if (load.recipe) check_asha_recipe(sweep, nlohmann::json(load.recipe->resolved), errors);
  return errors;
}

std::vector<Diagnostics> validate_points(const SweepFile& sweep,
                                         const std::vector<SweepPoint>& points,
                                         const Capabilities& caps) {
  std::vector<Diagnostics> out;
  out.reserve(points.size());
  for (const auto& p : points) out.push_back(validate_point(sweep, p, caps));
  return out;
}

namespace {

// A job stays in the queue after the sweep that submitted it was stopped; the
// point continues once it has ended. False when a stop signal ended the wait.
bool wait_for_leftover_job(const std::string& id, long job, std::ostream& out) {
  const SlurmJobs slurm({});
  for (int i = 0; !pending_stop_signal(); ++i) {
    const SlurmJobState s = slurm.states({job})[job];
    if (s.state.empty() || slurm_job_ended(s.state)) return true;
    if (i == 0) out << fmt::format("[sweep] waiting for {}'s Slurm job {} ({}) to end\n", id, job, s.state) << std::flush;
    std::this_thread::sleep_for(std::chrono::seconds(2));
  }
  return false;
}

class SweepScheduler {
 public:
  SweepScheduler(const SweepFile& sweep, const std::vector<SweepPoint>& points,
                 const SweepRunOptions& options, Ledger& ledger, std::ostream& out)
      : sweep_(sweep), points_(points), options_(options), ledger_(ledger), out_(out),
        dir_(sweep_dir_of(sweep)) {}

  // Runs the queued point indexes; returns the stop signal, 0 when none.
  int run(std::vector<size_t> queue) {
    size_t next = 0;
    while (next < queue.size() || !children_.empty()) {
      children_.stop_on_pending_signal();
      while (children_.has_room(options_.jobs) && next < queue.size()) launch(queue[next++]);
      if (children_.empty()) break;
      if (auto exited = children_.wait()) finish(exited->first, exited->second);
    }
    return children_.stop_signal();
  }

 private:

  void launch(size_t index) {
    const SweepPoint& p = points_[index];
    fs::create_directories(dir_ + "/" + p.id);
    PointRecord& r = ledger_.points[p.id];
    bool resume = r.state != PointState::Failed;
    children_.start(index, point_command(sweep_, p, options_, resume), dir_ + "/" + p.id, sweep_.name + ":" + p.id, r);
    r.state = PointState::Running;
    r.attempts += 1;
    r.updated_utc = utc_timestamp();
    r.overrides = overrides_json(p);
    ledger_.save();
    out_ << fmt::format("[sweep] started {} (attempt {})\n", p.id, r.attempts) << std::flush;
  }

  void finish(size_t index, const ChildExit& e) {
    const SweepPoint& p = points_[index];
    PointRecord& r = ledger_.points[p.id];
    r.state = state_of_exit(e);
    r.last_exit_code = e.exit_code;
    r.pid = 0;
    r.slurm_job = 0;
    r.updated_utc = utc_timestamp();
    std::string log = dir_ + "/" + p.id + "/point.log";
    r.last_error = r.state == PointState::Completed ? "" : point_error(e, log);
    if (e.signal && r.state == PointState::Failed)
      r.last_error = fmt::format("crashed with signal {} ({}); {}", e.signal, strsignal(e.signal),
                                 r.last_error);
    ledger_.save();
    out_ << fmt::format("[sweep] {} {} (exit {}){}\n", p.id, state_name(r.state), e.exit_code,
                        r.last_error.empty() ? "" : ": " + r.last_error)
         << std::flush;
    children_.after_exit(r.state == PointState::Completed, r.state == PointState::Failed, options_.fail_fast, out_);
  }

  const SweepFile& sweep_;
  const std::vector<SweepPoint>& points_;
  const SweepRunOptions& options_;
  Ledger& ledger_;
  std::ostream& out_;
  std::string dir_;
  PointProcesses children_{options_.slurm};
};

// A point left "running" by a killed sweep may still be checkpointing after its
// SIGTERM, or, under Slurm, still queued or running; wait for it before
// anything resumes the same run directory.
void wait_for_leftover_children(Ledger& ledger, std::ostream& out) {
  for (auto& [id, r] : ledger.points) {
    if (r.state != PointState::Running) continue;
    if (r.slurm_job > 0 && !wait_for_leftover_job(id, r.slurm_job, out)) continue;  // still the job's
    for (int i = 0; i < 600 && process_alive(r.pid); ++i) {
      if (i == 0) out << fmt::format("[sweep] waiting for {} (pid {}) to stop\n", id, r.pid);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    r.state = PointState::Interrupted;
    r.pid = 0;
    r.slurm_job = 0;
  }
}

// A point whose run finished after the sweep was killed (before the ledger
// said so) is completed: its run directory's summary is the record.
bool run_completed(const std::string& sweep_dir, const std::string& id) {
  std::vector<std::string> runs = list_run_dirs(sweep_dir, id);
  if (runs.empty()) return false;
  std::optional<RunSummary> summary = read_run_summary_if_readable(RunPaths{runs.back()});
  return summary && summary->completed();
}

// Which points this invocation runs, marking invalid ones failed.
std::vector<size_t> plan(const std::vector<SweepPoint>& points,
                         const std::vector<Diagnostics>& checks, const SweepRunOptions& options,
                         Ledger& ledger, const std::string& dir, std::ostream& out) {
  std::vector<size_t> queue;
  for (size_t i = 0; i < points.size(); ++i) {
    PointRecord& r = ledger.points[points[i].id];
    if (r.state == PointState::Interrupted && run_completed(dir, points[i].id)) {
      r.state = PointState::Completed;
      r.last_error.clear();
    }
    r.overrides = overrides_json(points[i]);
    if (!checks[i].empty()) {
      r.state = PointState::Failed;
      r.last_error = "invalid point: " + format_all(checks[i]);
      r.last_exit_code = 2;
      out << fmt::format("[sweep] {} is invalid, not run:\n{}", points[i].id, format_all(checks[i]));
      continue;
    }
    if (r.state == PointState::Completed) continue;
    if (r.state == PointState::Failed && !options.retry_failed) {
      out << fmt::format("[sweep] {} failed before; skipped (use --retry-failed)\n", points[i].id);
      continue;
    }
    queue.push_back(i);
  }
  return queue;
}

// [asha] with a recipe that cannot stop and rank its runs at the rungs refuses
// the whole search (a sweep without it runs its valid points).
bool asha_refuses_recipe(const SweepFile& sweep, const std::vector<Diagnostics>& checks, std::ostream& err) {
  if (!sweep.asha.enabled) return false;
  for (const auto& c : checks)
    for (const auto& d : c)
      if (d.key_path.rfind("asha.", 0) == 0 || d.key_path == "data.eval_split" ||
          d.key_path == "train.early_stopping_patience") {
        err << format_all({d});
        return true;
      }
  return false;
}

// A sweep with no valid point would only mark them failed and exit 1: it is
// refused before its folder exists, as --dry-run refuses it.
bool every_point_invalid(const SweepFile& sweep, const std::vector<SweepPoint>& points,
                         const std::vector<Diagnostics>& checks, std::ostream& err) {
  if (points.empty() || std::any_of(checks.begin(), checks.end(), [](const Diagnostics& c) { return c.empty(); }))
    return false;
  for (size_t i = 0; i < points.size(); ++i)
    err << fmt::format("point {} ({}) is invalid:\n{}", i + 1, points[i].id, format_all(checks[i]));
  err << fmt::format("{}: every one of its {} points is invalid; nothing was run\n", sweep.path, points.size());
  return true;
}

}  // namespace

int run_sweep(const SweepFile& sweep, const std::vector<SweepPoint>& points,
              const SweepRunOptions& options, std::ostream& out, std::ostream& err) {
  const std::vector<Diagnostics> checks = validate_points(sweep, points, options.caps);
  if (asha_refuses_recipe(sweep, checks, err)) return 2;
  if (every_point_invalid(sweep, points, checks, err)) return 2;
  std::string dir = sweep_dir_of(sweep);
  fs::create_directories(dir);
  int lock = try_lock_file(dir + "/.sweep.lock");
  if (lock < 0) {
    err << fmt::format("error: {}: another `runner sweep` is running this sweep\n  hint: wait for "
                       "it, or watch it with `runner sweep {} --status`\n", dir, sweep.path);
    return 2;
  }
  Ledger ledger = load_ledger(ledger_path(dir));
  ledger.sweep_name = sweep.name;
  ledger.sweep_file = sweep.path;
  install_sweep_signal_handlers();
  int sig = 0;
  try {
    wait_for_leftover_children(ledger, out);
    if (sweep.asha.enabled) {
      sig = run_asha(sweep, points, checks, options, ledger, out);
    } else {
      std::vector<size_t> queue = plan(points, checks, options, ledger, dir, out);
      ledger.save();
      sig = SweepScheduler(sweep, points, options, ledger, out).run(queue);
    }
  } catch (const SlurmError& e) {
    // The jobs already submitted stay queued; a restarted sweep waits for them.
    ledger.save();
    err << "error: " << terminal_safe(e.what(), true) << "\n";
    if (int stop = pending_stop_signal()) return 128 + stop;  // interrupted, as without Slurm
    return 2;
  }
  SweepTable table = collect_results(sweep, points, ledger);
  write_summaries(table, dir);
  out << terminal_safe(render_markdown(table), true);  // the ledger's errors and names are records
  if (sig) return 128 + sig;
  // A point that successive halving stopped at a rung is a result, not a failure.
  for (const auto& p : points) {
    const PointState st = ledger.points[p.id].state;
    if (st != PointState::Completed && !(sweep.asha.enabled && st == PointState::Stopped)) return 1;
  }
  return 0;
}

}  // namespace runner
