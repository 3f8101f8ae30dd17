// save()'s share of a training session: the outcome summarized, the final
// evaluation (of the best weights when asked), final/ and the "end" event.
#include "run/session_parts.h"

#include "model/export.h"
#include "run/best_weights.h"
#include "run/record_integrity.h"
#include "run/run_summary.h"
#include "util/synced_file.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace runner {
void SessionParts::summarize_outcome() {
  nlohmann::json& sum = summary.summary;
  const TrainOutcome& out = outcome;
  long long samples = out.samples - samples_at_start;
  double secs = out.train_seconds;
  sum["global_step"] = out.global_step;
  sum["total_steps"] = trainer->total_steps();
  sum["samples_seen"] = out.samples;
  sum["train_seconds"] = secs;
  sum["samples_per_s"] = secs > 0 ? static_cast<double>(samples) / secs : 0.0;
  sum["tokens_per_s"] = secs > 0 ? static_cast<double>(batches->tokens_served()) / secs : 0.0;
  sum["stopped_early"] = out.status == TrainStatus::EarlyStopped;
  // The loop's stall and the background writer's time, summed over the checkpoints.
  if (!out.checkpoints.is_null()) sum["checkpoints"] = out.checkpoints;
  if (!out.best.is_null()) {
    sum["best"] = out.best;
    // One spelling whatever the recipe wrote ("f1" or "eval.f1"): the event's, eval.<metric>.
    const std::string& metric = settings.train.metric_for_best;
    sum["best"]["metric"] = metric.empty() || metric.rfind("eval.", 0) == 0 ? metric : "eval." + metric;
  }
}

int SessionParts::save_stopped() {
  nlohmann::json& sum = summary.summary;
  sum["stopped_at_step"] = outcome.global_step;
  if (outcome.last_eval.is_object() && outcome.last_eval.value("step", -1LL) == outcome.global_step)
    sum["stop_eval"] = outcome.last_eval;
  log->emit(end_event(kStoppedBySearch, {{"stopped_at_step", outcome.global_step}}));
  summary.write(kStoppedBySearch);
  return 0;
}

// The "end" event: how the run ended, with what the console's last line
// names (run/console_lines.h): step, wall time, speed, best, the run directory.
nlohmann::json SessionParts::end_event(const std::string& status, const nlohmann::json& extra) const {
  const nlohmann::json& sum = summary.summary;
  nlohmann::json e = {{"event", "end"}, {"status", status}, {"run_dir", start.paths.dir},
                      {"wall_seconds", summary.previous_wall() + summary.wall_seconds()}};
  for (const char* key : {"samples_per_s", "best"})
    if (sum.contains(key)) e[key] = sum[key];
  if (trainer) e["step"] = trainer->global_step(), e["total_steps"] = trainer->total_steps();
  e.update(extra);
  return e;
}

// The last evaluation if it was at the last step and of these weights, else a
// new one (evaluation is deterministic, so a resumed run gets the same).
nlohmann::json SessionParts::final_evaluation(bool reloaded) {
  const nlohmann::json& last = outcome.last_eval;
  if (!reloaded && last.is_object() && last.value("step", -1LL) == outcome.global_step) return last;
  return trainer->evaluate();
}

// train.load_best_at_end: the best checkpoint's weights, unless the last step
// is the best. The primary reads them; the other ranks receive them. Returns
// whether the weights changed.
bool SessionParts::reload_best() {
  const nlohmann::json& best = outcome.best;
  if (!settings.train.load_best_at_end || !best.is_object() ||
      best.value("step", -1LL) == outcome.global_step)
    return false;
  const std::string name = best.at("checkpoint").get<std::string>();
  if (primary()) load_best_weights(*model, start.paths.checkpoints(), name);
  if (start.dist) broadcast_module(*start.dist, *model);
  summary.summary["final_weights"] = name;
  log->emit({{"event", "load_best"}, {"step", best.at("step")}, {"checkpoint", name}});
  return true;
}

// final/ is written next to itself and renamed into place, so that a run
// killed while exporting never leaves a half-written model folder.
void SessionParts::export_final_model() {
  const RunPaths& paths = start.paths;
  std::string tmp = paths.final_model() + ".tmp";
  fs::remove_all(tmp);
  export_hf_folder(*model, tmp, tokenizer_source(settings.tokenizer));
  write_folder_manifest(tmp);
  fs::remove_all(paths.final_model());
  fs::rename(tmp, paths.final_model());
  fsync_directory(paths.dir);
}

}  // namespace runner
