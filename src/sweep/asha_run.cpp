#include "sweep/asha_run.h"

#include "run/run_search.h"
#include "run/run_summary.h"
#include "sweep/asha.h"
#include "sweep/asha_file.h"
#include "sweep/point_command.h"
#include "sweep/point_processes.h"
#include "sweep/process.h"
#include "sweep/replicates.h"
#include "sweep/run_result.h"
#include "util/json_input.h"
#include "util/numbers.h"
#include "util/suggest.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <map>
#include <ostream>

namespace runner {
namespace fs = std::filesystem;

nlohmann::json eval_at_step(const SweepFile& sweep, const std::string& point_id, long long step) {
  std::vector<std::string> runs = list_run_dirs(sweep_dir_of(sweep), point_id);
  if (runs.empty()) return nullptr;
  nlohmann::json found;
  try {
    for (const auto& e : load_run(runs.back()).evals)
      if (e.value("step", -1LL) == step) found = e;
  } catch (const std::exception&) {
    return nullptr;  // no readable summary: the point has no metric at this rung
  }
  return found;
}

namespace {

class AshaSearch {
 public:
  AshaSearch(const SweepFile& sweep, const std::vector<SweepPoint>& points, const SweepRunOptions& options,
             Ledger& ledger, std::ostream& out)
      : sweep_(sweep), points_(points), options_(options), ledger_(ledger), out_(out),
        rungs_(asha_rungs(sweep.asha)), dir_(sweep_dir_of(sweep)),
        configuration_(configuration_indices(points, sweep.replicates)) {}

  int run(const std::vector<Diagnostics>& checks) {
    for (size_t i = 0; i < points_.size(); ++i) prepare(i, checks[i]);
    ledger_.save();
    out_ << fmt::format("[asha] rungs at {} {}, eta {}{}; {} points\n", sweep_.asha.unit(), join_numbers(), sweep_.asha.eta,
                        sweep_.asha.certain ? ", promotions once certain" : "", points_.size())
         << std::flush;
    for (;;) {
      children_.stop_on_pending_signal();
      while (children_.has_room(options_.jobs) && launch_next()) {
      }
      if (children_.empty()) break;
      if (auto exited = children_.wait()) finish(exited->first, exited->second);
    }
    return children_.stop_signal();
  }

 private:
  PointRecord& record(size_t i) { return ledger_.points[points_[i].id]; }
  int top() const { return static_cast<int>(rungs_.size()) - 1; }
  const char* budget_word() const { return sweep_.asha.epochs ? "epoch" : "step"; }

  std::string join_numbers() const {
    std::string s;
    for (long long r : rungs_) s += (s.empty() ? "" : ", ") + std::to_string(r);
    return s;
  }

  // Invalid points fail; a point that a killed sweep left behind continues, or
  // is recorded as finished when its run reached its rung before the kill.
  void prepare(size_t i, const Diagnostics& check) {
    PointRecord& r = record(i);
    r.overrides = overrides_json(points_[i]);
    valid_.push_back(check.empty());
    if (!check.empty()) {
      r.state = PointState::Failed;
      r.last_error = "invalid point: " + format_all(check);
      r.last_exit_code = 2;
      out_ << fmt::format("[sweep] {} is invalid, not run:\n{}", points_[i].id, format_all(check));
      return;
    }
    if (r.rung < 0) return;
    if (r.state == PointState::Interrupted || r.state == PointState::Running) {
      if (reached_rung(i)) record_rung(i);
      else again_.push_back(i);
    } else if (r.state == PointState::Failed && options_.retry_failed) {
      again_.push_back(i);
    } else if (r.state == PointState::Failed) {
      out_ << fmt::format("[sweep] {} failed before; skipped (use --retry-failed)\n", points_[i].id);
    }
  }

  bool reached_rung(size_t i) {
    std::vector<std::string> runs = list_run_dirs(dir_, points_[i].id);
    if (runs.empty()) return false;
    std::optional<RunSummary> s = read_run_summary_if_readable(RunPaths{runs.back()});
    if (!s) return false;
    const int rung = record(i).rung;
    if (rung == top()) return s->completed();
    return s->status == kStoppedBySearch && record_integer(s->record, "global_step") == rung_step(*s, rung);
  }

  // The optimizer step that ends `rung` in a run of the point: the rung itself,
  // or with budgets in epochs that epoch's end (the run's steps per epoch are
  // its total steps over max_budget epochs).
  long long rung_step(const RunSummary& s, int rung) const {
    if (!sweep_.asha.epochs) return rungs_[rung];
    return rungs_[rung] * record_integer(s.record, "total_steps") / sweep_.asha.max_budget;
  }

  // The point's evaluation at the end of `rung`; null when there is none.
  nlohmann::json eval_at_rung(size_t i, int rung) {
    std::vector<std::string> runs = list_run_dirs(dir_, points_[i].id);
    if (runs.empty()) return nullptr;
    std::optional<RunSummary> s = read_run_summary_if_readable(RunPaths{runs.back()});
    if (!s) return nullptr;
    return eval_at_step(sweep_, points_[i].id, rung_step(*s, rung));
  }

  bool fresh(size_t i) {
    const PointRecord& r = record(i);
    if (r.rung >= 0 || !valid_[i]) return false;
    return r.state != PointState::Failed || options_.retry_failed;
  }

  // Out of the search: invalid, or failed and not to be run again by this sweep.
  bool dropped(size_t i) {
    const PointRecord& r = record(i);
    if (!valid_[i]) return true;
    if (r.state != PointState::Failed) return false;
    const bool queued = std::find(again_.begin(), again_.end(), i) != again_.end();
    return !queued && !(i >= next_ && fresh(i));  // a failed point this sweep will still start
  }

  std::vector<RungPoint> rung_points() {
    std::vector<RungPoint> out;
    for (size_t i = 0; i < points_.size(); ++i)
      out.push_back({record(i).rung_metrics, record(i).rung, record(i).rung_losses, dropped(i), configuration_[i]});
    return out;
  }

  bool launch_next() {
    if (!again_.empty()) {
      size_t i = again_.front();
      again_.pop_front();
      launch(i, record(i).rung, "continued");
      return true;
    }
    const auto promotion = sweep_.asha.certain ? certain_promotion : asha_promotion;
    if (auto p = promotion(rung_points(), static_cast<int>(rungs_.size()), sweep_.asha.eta, sweep_.higher_is_better)) {
      launch(p->point, p->rung, "promoted");
      return true;
    }
    while (next_ < points_.size() && !fresh(next_)) ++next_;
    if (next_ == points_.size()) return false;
    launch(next_++, 0, "started");
    return true;
  }

  void launch(size_t i, int rung, const char* how) {
    const SweepPoint& p = points_[i];
    fs::create_directories(dir_ + "/" + p.id);
    PointRecord& r = record(i);
    const bool resume = r.state != PointState::Failed;
    std::vector<std::string> extra = {"--set", asha_length_set(sweep_.asha)};
    if (rung < top())
      extra.insert(extra.end(), {sweep_.asha.epochs ? "--stop-at-epoch" : "--stop-at-step", std::to_string(rungs_[rung])});
    children_.start(i, point_command(sweep_, p, options_, resume, extra), dir_ + "/" + p.id, sweep_.name + ":" + p.id, r);
    r.rung = rung;
    r.state = PointState::Running;
    r.attempts += 1;
    r.updated_utc = utc_timestamp();
    ledger_.save();
    out_ << fmt::format("[asha] {} {} at rung {} ({} {})\n", how, p.id, rung, budget_word(), rungs_[rung]) << std::flush;
  }

  // The point's metric at its rung: the top rung completes it, a lower one
  // leaves it stopped by the search until a promotion continues it.
  void record_rung(size_t i) {
    PointRecord& r = record(i);
    const nlohmann::json eval = eval_at_rung(i, r.rung);
    auto number = [&eval](const std::string& name) {
      return eval.is_object() && eval.contains(name) && eval[name].is_number() ? std::optional(eval[name].get<double>())
                                                                             : std::nullopt;
    };
    r.rung_metrics.resize(static_cast<size_t>(r.rung) + 1);
    r.rung_metrics[r.rung] = number(eval_metric_name(sweep_.metric));
    r.rung_losses.resize(static_cast<size_t>(r.rung) + 1);
    r.rung_losses[r.rung] = number("loss");
    r.state = r.rung == top() ? PointState::Completed : PointState::Stopped;
    r.last_error.clear();
  }

  void finish(size_t i, const ChildExit& e) {
    PointRecord& r = record(i);
    r.pid = 0;
    r.slurm_job = 0;
    r.last_exit_code = e.exit_code;
    r.updated_utc = utc_timestamp();
    r.state = state_of_exit(e);
    if (r.state == PointState::Completed) record_rung(i);
    else r.last_error = point_error(e, dir_ + "/" + points_[i].id + "/point.log");
    ledger_.save();
    const std::optional<double> m = r.rung_metrics.size() > static_cast<size_t>(r.rung) ? r.rung_metrics[r.rung]
                                                                                        : std::nullopt;
    out_ << fmt::format("[asha] {} {} at rung {} ({} {}){}{}\n", points_[i].id, state_name(r.state), r.rung, budget_word(),
                        rungs_[r.rung], m ? fmt::format(": {} = {:.4f}", sweep_.metric, *m) : "",
                        r.last_error.empty() ? "" : ": " + r.last_error)
         << std::flush;
    children_.after_exit(e.exit_code == 0, r.state == PointState::Failed, options_.fail_fast, out_);
  }

  const SweepFile& sweep_;
  const std::vector<SweepPoint>& points_;
  const SweepRunOptions& options_;
  Ledger& ledger_;
  std::ostream& out_;
  std::vector<long long> rungs_;
  std::string dir_;
  std::vector<int> configuration_;  // by point: its configuration (RungPoint::configuration)
  std::vector<bool> valid_;         // by point: no errors from validation
  std::deque<size_t> again_;        // points that continue toward the rung they were sent to
  size_t next_ = 0;                 // the next point that may start fresh
  PointProcesses children_{options_.slurm};
};

}  // namespace

int run_asha(const SweepFile& sweep, const std::vector<SweepPoint>& points, const std::vector<Diagnostics>& checks,
             const SweepRunOptions& options, Ledger& ledger, std::ostream& out) {
  return AshaSearch(sweep, points, options, ledger, out).run(checks);
}

}  // namespace runner
