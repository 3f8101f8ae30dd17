// What a training session builds and its stages use (run/training_session.h):
// the run's records (summary.json, loggers), the data, model, optimizer and
// trainer, and what the run ends with. setup() builds them
// (run/session_setup.cpp); save() writes the end from them
// (run/session_save.cpp). LibTorch types.
#pragma once

#include "parallel/data_parallel.h"
#include "model/model_factory.h"
#include "run/resume_plan.h"
#include "run/run_data.h"
#include "run/run_parallel.h"
#include "run/run_setup.h"
#include "run/summary_writer.h"
#include "run/test_hooks.h"
#include "run/training_session.h"
#include "train/metric.h"
#include "train/split_batch_source.h"
#include "train/trainer.h"

#include <memory>
#include <string>

namespace runner {

struct SessionParts {
  SessionParts(const Recipe& r, SessionStart s)
      : recipe(r), start(std::move(s)), settings(start.settings),
        summary(start.paths, is_primary(start.dist.get()), start.resuming) {}

  const Recipe& recipe;
  SessionStart start;
  SessionSettings& settings;  // the recipe decoded once, start's
  SummaryWriter summary;
  std::unique_ptr<RunLoggers> log;
  StepWatch watch;
  int threads = 0;
  torch::Device device = torch::kCPU;
  RunData data;
  EvalSet eval;
  std::shared_ptr<TaskModel> model;
  std::unique_ptr<SplitBatchSource> batches;
  std::unique_ptr<DataParallel> parallel;
  std::unique_ptr<Trainer> trainer;
  std::unique_ptr<MetricWarnings> metric_warnings;
  ResumePoint resume;  // the resume plan's checkpoint; step 0 for a new run
  long long samples_at_start = 0;
  TrainOutcome outcome;

  bool primary() const { return is_primary(start.dist.get()); }
  // Once on the console: as the console logger's line, else printed here.
  void warn(const std::string& message) const;
  void open_loggers();
  // A worker group that `runner launch --max-restarts` started again says so in the run's events.
  void log_restart();
  // CUDA graphs replay one graph per batch shape (train/step_graphs.h): on a GPU,
  // dynamic padding that the recipe left unrounded is rounded up to 32, so that
  // max_length 128 makes at most 4 lengths. cuda_graphs = "off" keeps it exact.
  void bucket_lengths_for_graphs();
  void apply_process_settings();
  void prepare_data();
  void build_model();
  void require_ids_fit();  // the tokenizer's ids inside the model's embedding table
  // What model.pretrained gave, as transformers reports it: the tensors newly
  // initialised from run.seed (a classification head on a bare encoder) and
  // those ignored, in the console and metrics.jsonl (warning) and summary.json.
  // A resumed run's checkpoint restores every tensor: nothing is new to announce.
  void record_pretrained_load(const LoadReport& report);
  void record_lora(const LoraReport& lora);
  void build_trainer();
  // Smoothing spreads a target over classes; a regression's one output has none.
  void refuse_smoothing_a_regression(const TrainerConfig& cfg) const;
  void resume_trainer();
  void summarize_outcome();
  // A run ended at --stop-at-step: its summary says stopped_by_search, with the
  // step and the evaluation there; no final evaluation, no final/ (a resume goes on).
  int save_stopped();
  // The "end" event: how the run ended, with what the console's last line
  // names (run/console_lines.h): step, wall time, speed, best, the run directory.
  nlohmann::json end_event(const std::string& status, const nlohmann::json& extra) const;
  // The last evaluation if it was at the last step and of these weights, else a
  // new one (evaluation is deterministic, so a resumed run gets the same).
  nlohmann::json final_evaluation(bool reloaded);
  // train.load_best_at_end: the best checkpoint's weights, unless the last step
  // is the best. The primary reads them; the other ranks receive them. Returns
  // whether the weights changed.
  bool reload_best();
  // final/ is written next to itself and renamed into place, so that a run
  // killed while exporting never leaves a half-written model folder.
  void export_final_model();
};

}  // namespace runner
