#include "run/training_session.h"

#include "data/data_options.h"
#include "dist/worker_env.h"
#include "model/export.h"
#include "model/model_factory.h"
#include "run/best_weights.h"
#include "run/run_data.h"
#include "run/run_lock.h"
#include "run/run_options.h"
#include "run/run_parallel.h"
#include "run/run_setup.h"
#include "run/test_hooks.h"
#include "train/class_weights.h"
#include "train/interrupt.h"
#include "train/metric.h"
#include "train/split_batch_source.h"
#include "train/trainer.h"
#include "train/training_state.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

namespace fs = std::filesystem;

namespace runner {

// Each recipe section decoded once: typed settings for [run], [data] and
// [train]; the component sections go to their components as they are. Not in
// the anonymous namespace: TrainingSession::Parts, declared in the header, holds one.
struct SessionSettings {
  RunSettings run;
  DataSettings data;
  TrainerConfig train;
  nlohmann::json data_section, tokenizer, model, optimizer, scheduler;
};

namespace {

SessionSettings decode_settings(const Recipe& r) {
  SessionSettings s;
  s.run = run_settings_from(r.section("run"));
  s.data = data_settings_from(r.section("data"));
  s.train = trainer_config_from(r.section("train"));
  s.data_section = r.section("data");
  s.tokenizer = r.section("tokenizer");
  s.model = r.section("model");
  s.optimizer = r.section("optimizer");
  s.scheduler = r.section("scheduler");
  return s;
}

// Where the tokenizer files for final/ come from.
std::string tokenizer_folder(const nlohmann::json& tokenizer_section) {
  fs::path p = tokenizer_section.value("path", std::string());
  if (p.empty()) return {};
  return fs::is_directory(p) ? p.string() : p.parent_path().string();
}

long long parameter_count(SequenceClassifier& model) {
  long long n = 0;
  for (const auto& p : model.parameters()) n += p.numel();
  return n;
}

}  // namespace

struct TrainingSession::Parts {
  Parts(const Recipe& r, SessionStart s)
      : recipe(r), start(std::move(s)), settings(decode_settings(r)),
        summary(start.paths, is_primary(start.dist.get()), start.resuming) {}

  const Recipe& recipe;
  SessionStart start;
  SessionSettings settings;
  SummaryWriter summary;
  std::unique_ptr<RunLoggers> log;
  StepWatch watch;
  int threads = 0;
  torch::Device device = torch::kCPU;
  RunData data;
  EvalSet eval;
  std::shared_ptr<SequenceClassifier> model;
  std::unique_ptr<SplitBatchSource> batches;
  std::unique_ptr<DataParallel> parallel;
  std::unique_ptr<Trainer> trainer;
  std::unique_ptr<MetricWarnings> metric_warnings;
  ResumePoint resume;
  long long samples_at_start = 0;
  TrainOutcome outcome;

  bool primary() const { return is_primary(start.dist.get()); }

  // Once on the console: as the console logger's line, else printed here.
  void warn(const std::string& message) const {
    if (!log->shows_console()) std::cerr << "warning: " << message << "\n";
    log->emit({{"event", "warning"}, {"message", message}});
  }

  void open_loggers() {
    if (start.resuming) {
      resume = start.resume_point ? *start.resume_point : find_resume_point(start.paths);
      if (primary()) {
        summary.cover_logged_time(latest_elapsed_seconds(start.paths));  // the killed session's events included
        cut_event_logs(start.paths, resume.step);  // before the loggers reopen the files
      }
    }
    const double before = summary.previous_wall();
    log = primary() ? std::make_unique<RunLoggers>(settings.run, start.paths, start.resuming, before)
                    : std::make_unique<RunLoggers>(before);
    log->add(&watch);
    log_restart();
  }

  // A worker group that `runner launch --max-restarts` started again says so in the run's events.
  void log_restart() {
    const LaunchAttempt attempt = launch_attempt_from_process();
    if (attempt.restart == 0) return;
    log->emit({{"event", "restart"}, {"restart", attempt.restart}, {"max_restarts", attempt.max_restarts},
               {"reason", attempt.reason}, {"step", resume.step}, {"checkpoint", resume.checkpoint}});
  }

  // CUDA graphs replay one graph per batch shape (train/step_graphs.h): on a GPU,
  // dynamic padding that the recipe left unrounded is rounded up to 32, so that
  // max_length 128 makes at most 4 lengths. cuda_graphs = "off" keeps it exact.
  void bucket_lengths_for_graphs() {
    if (!device.is_cuda() || settings.train.cuda_graphs == CudaGraphs::Off) return;
    if (data.padding.to_max_length || data.padding.pad_to_multiple_of != 0) return;
    data.padding.pad_to_multiple_of = 32;
    log->emit({{"event", "note"}, {"message", "data.pad_to_multiple_of = 32 for CUDA graphs' shapes "
                                              "(train.cuda_graphs = \"off\" keeps exact dynamic padding)"}});
  }

  void apply_process_settings() {
    threads = apply_thread_setting(settings.run);
    split_threads(settings.run, start.dist.get());
    apply_determinism(settings.run);
    device = pick_device(settings.run);
    if (std::string w = bf16_warning(settings.train.precision, device); !w.empty()) warn(w);
  }

  void prepare_data() {
    data = open_data(settings.data, settings.data_section, settings.tokenizer);
    bucket_lengths_for_graphs();
    if (primary()) {
      SessionRecord record{start.resuming, start.origin, start.command_line,
                           data_content_files(data, settings.tokenizer), settings.run.seed,
                           threads, device.str()};
      record_environment(start.paths, record);
    }
    tokenize_data(data, settings.data, settings.data_section,
                  [this](const nlohmann::json& e) { log->emit(e); });
    eval = make_eval_set(data, settings.data, device);
    SamplerConfig sampler = train_sampler_config(settings.data, static_cast<uint64_t>(settings.run.seed));
    shard_sampler(sampler, start.dist.get());
    batches = std::make_unique<SplitBatchSource>(data.train, data.train_split, sampler, data.padding,
                                                 device);
  }

  void build_model() {
    const DatasetInfo& info = data.dataset->info();
    torch::manual_seed(static_cast<uint64_t>(settings.run.seed));
    LoadedModel loaded = runner::build_model(settings.model, model_context_of(info));
    model = loaded.model;
    record_pretrained_load(loaded.report);
    model->to(device);
    if (!start.dist) return;
    broadcast_module(*start.dist, *model);
    // Past the shared init, each rank's generator starts from seed + rank (Accelerate's
    // device-specific seeding): ranks draw their own dropout masks, and rank 0 draws
    // what a single process draws.
    torch::manual_seed(static_cast<uint64_t>(settings.run.seed) + static_cast<uint64_t>(start.dist->rank()));
  }

  // What model.pretrained gave, as transformers reports it: the tensors newly
  // initialised from run.seed (a classification head on a bare encoder) and
  // those ignored, in the console and metrics.jsonl (warning) and summary.json.
  // A resumed run's checkpoint restores every tensor: nothing is new to announce.
  void record_pretrained_load(const LoadReport& report) {
    if (report.source.empty()) return;
    summary.summary["pretrained"] = {{"weights", report.source}, {"newly_initialised", report.missing},
                                     {"ignored", report.unexpected}};
    if (!resume.checkpoint.empty()) return;
    if (std::string w = report.warning(); !w.empty()) warn(w);
  }

  void build_trainer() {
    TrainerConfig cfg = settings.train;
    cfg.checkpoints_dir = start.paths.checkpoints();
    const DatasetInfo& info = data.dataset->info();
    take_main_metric(cfg, info.main_metric);
    settings.train.metric_for_best = cfg.metric_for_best;
    refuse_smoothing_a_regression(cfg);
    cfg.loss_weights = resolve_class_weights(cfg, *data.train, info.problem_type, info.num_labels);
    if (!cfg.loss_weights.empty()) summary.summary["class_weights"] = cfg.loss_weights;
    metric_warnings = std::make_unique<MetricWarnings>([this](const std::string& m) { warn(m); });
    auto optimizer = make_rank_optimizer(recipe, start.dist, *model, parallel);
    trainer = std::make_unique<Trainer>(
        cfg, model, std::move(optimizer),
        make_schedule(settings.scheduler, settings.optimizer.at("lr").get<double>()), *batches,
        data.eval ? &eval : nullptr, std::vector<Logger*>{log.get()});
    if (cfg.grad_accum > batches->batches_per_epoch())
      warn(fmt::format("train.grad_accum = {} is more than the {} batches of an epoch: each epoch is one "
                       "optimizer step over all of them", cfg.grad_accum, batches->batches_per_epoch()));
    trainer->set_checkpoint_hook(watch.checkpoint_hook());
    if (parallel) trainer->set_parallel(parallel.get());
    log->emit({{"event", "setup"}, {"threads", threads}, {"device", device.str()},
               {"train_examples", data.train->size()},
               {"eval_examples", data.eval ? data.eval->size() : 0},
               {"parameters", parameter_count(*model)}});
  }

  // Smoothing spreads a target over classes; a regression's one output has none.
  void refuse_smoothing_a_regression(const TrainerConfig& cfg) const {
    if (cfg.label_smoothing != 0.0 && data.dataset->info().problem_type == ProblemType::MultiLabel)
      throw InputError(make_error(recipe.location_of("train.label_smoothing"), "train.label_smoothing",
                                  "label smoothing spreads one class's target over the others, and this "
                                  "dataset is multi-label (one yes/no target per label)",
                                  "remove train.label_smoothing"));
    if (cfg.label_smoothing == 0.0 || data.dataset->info().num_labels != 1) return;
    throw InputError(make_error(recipe.location_of("train.label_smoothing"), "train.label_smoothing",
                                "label smoothing applies to classification, and this dataset is a "
                                "regression (one label)",
                                "remove train.label_smoothing, or train a classification dataset"));
  }

  void resume_trainer() {
    for (const auto& w : resume.warnings) log->emit({{"event", "warning"}, {"message", w}});
    summary.summary["resumed_from"] = nullptr;
    if (resume.checkpoint.empty()) return;
    std::shared_ptr<const TrainingState> state = start.resume_state;
    if (!state) state = std::make_shared<const TrainingState>(load_training_state(resume.checkpoint));
    trainer->resume(*state);
    samples_at_start = state->samples_seen;
    start.resume_state.reset();  // its tensors (weights, optimizer moments) are the trainer's now
    summary.summary["resumed_from"] = resume.checkpoint;
    log->emit({{"event", "resume"}, {"step", resume.step}, {"checkpoint", resume.checkpoint}});
  }

  void summarize_outcome() {
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

  // The "end" event: how the run ended, with what the console's last line
  // names (run/console_lines.h): step, wall time, speed, best, the run directory.
  nlohmann::json end_event(const std::string& status, const nlohmann::json& extra) const {
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
  nlohmann::json final_evaluation(bool reloaded) {
    const nlohmann::json& last = outcome.last_eval;
    if (!reloaded && last.is_object() && last.value("step", -1LL) == outcome.global_step) return last;
    return trainer->evaluate();
  }

  // train.load_best_at_end: the best checkpoint's weights, unless the last step
  // is the best. The primary reads them; the other ranks receive them. Returns
  // whether the weights changed.
  bool reload_best() {
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
  void export_final_model() {
    const RunPaths& paths = start.paths;
    std::string tmp = paths.final_model() + ".tmp";
    fs::remove_all(tmp);
    export_hf_folder(*model, tmp, tokenizer_folder(settings.tokenizer));
    write_folder_manifest(tmp);
    fs::remove_all(paths.final_model());
    fs::rename(tmp, paths.final_model());
    fsync_directory(paths.dir);
  }
};

TrainingSession::TrainingSession(const Recipe& recipe, SessionStart start)
    : parts_(std::make_unique<Parts>(recipe, std::move(start))) {}

TrainingSession::~TrainingSession() = default;

void TrainingSession::setup() {
  Parts& p = *parts_;
  install_interrupt_handlers();
  exit_on_interrupt(true);  // until the loop can stop cleanly at a step
  p.summary.summary = {{"run_name", p.settings.run.name}, {"started_utc", utc_timestamp()}};
  p.summary.write("running");
  p.open_loggers();
  p.apply_process_settings();
  p.prepare_data();
  p.build_model();
  p.build_trainer();
  p.resume_trainer();
  exit_on_interrupt(false);
}

void TrainingSession::train() { parts_->outcome = parts_->trainer->train(); }

int TrainingSession::save() {
  Parts& p = *parts_;
  p.summarize_outcome();
  nlohmann::json& sum = p.summary.summary;
  if (p.outcome.status == TrainStatus::Interrupted) {
    sum["signal"] = p.outcome.signal;
    p.log->emit(p.end_event("interrupted", {{"signal", p.outcome.signal}}));
    p.summary.write("interrupted");
    return interrupt_exit_code(p.outcome.signal);
  }
  sum["final"] = p.final_evaluation(p.reload_best());
  if (p.primary()) p.export_final_model();
  sum["final_model"] = p.start.paths.final_model();
  p.log->emit(p.end_event("completed", {{"final", sum["final"]}}));
  p.summary.write("completed");
  release_run_dir(p.start.paths.dir);  // a completed run holds no lock file
  return 0;
}

void TrainingSession::close(const std::exception& e) {
  Parts& p = *parts_;
  auto* input = dynamic_cast<const InputError*>(&e);
  nlohmann::json& sum = p.summary.summary;
  // A LibTorch error's what() carries a C++ backtrace: the record keeps the message only.
  sum["error"] = input ? input->diagnostic().format() : without_backtrace(e.what());
  if (p.log) p.log->emit(p.end_event("failed", {{"error", sum["error"]}}));
  p.summary.write("failed");
}

void TrainingSession::abandon() { parts_->summary.stop_heartbeat(); }

namespace {

// A new single-process run whose input was refused before its first step holds
// nothing worth keeping: its directory goes, as a recipe refused at validate
// leaves none (a resumed or multi-process run keeps its directory and says why).
void discard_refused_run(const RunPaths& paths) {
  std::error_code ec;
  fs::remove_all(paths.dir, ec);
  const fs::path parent = fs::path(paths.dir).parent_path();
  fs::remove(parent, ec);  // only when empty: other runs of this name stay
  if (paths.created_output_dir) fs::remove(parent.parent_path(), ec);  // likewise
  std::cerr << fmt::format("run directory {} removed: its input was refused before the first step\n",
                           paths.dir);
}

}  // namespace

int run_session(const Recipe& recipe, SessionStart start) {
  const RunPaths paths = start.paths;
  const bool new_single_process_run = !start.resuming && !start.dist;
  TrainingSession session(recipe, std::move(start));  // the only holder of a resume's training state
  bool set_up = false;
  try {
    session.setup();
    set_up = true;
    session.train();
    return session.save();
  } catch (const InputError& e) {
    if (!set_up && new_single_process_run) {
      session.abandon();
      discard_refused_run(paths);
    } else {
      session.close(e);
    }
    throw;
  } catch (const std::exception& e) {
    session.close(e);
    throw;
  }
}

}  // namespace runner
