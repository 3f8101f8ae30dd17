// setup()'s share of a training session: the loggers, the process settings,
// the data, the model, the trainer, and the resume plan's checkpoint restored.
#include "run/session_parts.h"
#include "model/embedding_tables.h"

#include "parallel/worker_env.h"
#include "run/env_record.h"
#include "model/model_budget.h"
#include "run/event_logs.h"
#include "train/class_weights.h"
#include "train/training_state.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <iostream>

namespace runner {
namespace {

long long parameter_count(TaskModel& model) {
  long long n = 0;
  for (const auto& p : model.parameters()) n += p.numel();
  return n;
}

// The largest token type id of every split, -1 when none.
int32_t largest_type_id(const RunData& data) {
  int32_t top = -1;
  auto scan = [&top](const std::shared_ptr<const TokenizedSplit>& split) {
    if (split && !split->token_type_ids.empty())
      top = std::max<int32_t>(top, *std::max_element(split->token_type_ids.begin(), split->token_type_ids.end()));
  };
  scan(data.train);
  scan(data.eval);
  for (const auto& c : data.companions) scan(c.second);
  return top;
}

int32_t largest_id(const RunData& data) {
  int32_t top = -1;
  auto scan = [&top](const std::shared_ptr<const TokenizedSplit>& split) {
    if (split && !split->input_ids.empty())
      top = std::max(top, *std::max_element(split->input_ids.begin(), split->input_ids.end()));
  };
  scan(data.train);
  scan(data.eval);
  for (const auto& c : data.companions) scan(c.second);
  return top;
}

}  // namespace

// Once on the console: as the console logger's line, else printed here.
void SessionParts::warn(const std::string& message) const {
  if (!log->shows_console()) std::cerr << "warning: " << message << "\n";
  log->emit({{"event", "warning"}, {"message", message}});
}

void SessionParts::open_loggers() {
  if (start.resume) {
    resume = start.resume->point;
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
void SessionParts::log_restart() {
  const LaunchAttempt attempt = launch_attempt_from_process();
  if (attempt.restart == 0) return;
  log->emit({{"event", "restart"}, {"restart", attempt.restart}, {"max_restarts", attempt.max_restarts},
             {"reason", attempt.reason}, {"step", resume.step}, {"checkpoint", resume.checkpoint}});
}

// CUDA graphs replay one graph per batch shape (train/step_graphs.h): on a GPU,
// dynamic padding that the recipe left unrounded is rounded up to 32, so that
// max_length 128 makes at most 4 lengths. cuda_graphs = "off" keeps it exact.
void SessionParts::bucket_lengths_for_graphs() {
  if (!device.is_cuda() || settings.train.cuda_graphs == CudaGraphs::Off) return;
  if (data.padding.to_max_length || data.padding.pad_to_multiple_of != 0) return;
  data.padding.pad_to_multiple_of = 32;
  log->emit({{"event", "note"}, {"message", "data.pad_to_multiple_of = 32 for CUDA graphs' shapes "
                                            "(train.cuda_graphs = \"off\" keeps exact dynamic padding)"}});
}

void SessionParts::apply_process_settings() {
  threads = apply_thread_setting(settings.run);
  split_threads(settings.run, start.dist.get());
  apply_determinism(settings.run);
  device = pick_device(settings.run);
  if (std::string w = bf16_warning(settings.train.precision, device); !w.empty()) warn(w);
}

void SessionParts::prepare_data() {
  // A resume opened the data to hash its files (run/resume_plan.h): it goes on with it.
  if (start.resume && start.resume->data) data = std::move(*start.resume->data);
  else data = open_data(settings.data, settings.data_section, settings.tokenizer);
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

// A tokenizer whose ids or type ids run past the model's embedding tables (a
// tokenizer.path that is not the model's) would stop the first step with
// LibTorch's index error.
void SessionParts::require_ids_fit() {
  const int64_t types = table_rows(*model, {"token_type_embeddings.weight"});
  const int32_t top_type = largest_type_id(data);
  if (model->uses_token_type_ids() && types > 0 && top_type >= types) {
    Diagnostic past = type_ids_past_table(top_type, types);  // validate's message too
    past.where = recipe.location_of("tokenizer.path");
    throw InputError(past);
  }
  const int64_t rows = embedding_rows(*model);
  const int32_t top = largest_id(data);
  if (rows == 0 || top < rows) return;
  throw InputError(make_error(
      recipe.location_of("tokenizer.path"), "tokenizer.path",
      fmt::format("the tokenizer gives token id {}, but the model's embedding table has {} rows (its vocab_size); "
                  "nothing was trained",
                  top, rows),
      "use the tokenizer that came with the model (leave tokenizer.path out to take model.pretrained's own), "
      "or a model whose vocab_size covers this tokenizer"));
}

void SessionParts::build_model() {
  const DatasetInfo& info = data.dataset->info();
  torch::manual_seed(static_cast<uint64_t>(settings.run.seed));
  LoadedModel loaded = runner::build_model(settings.model, model_context_of(info), {}, settings.lora);
  model = loaded.model;
  require_ids_fit();
  record_pretrained_load(loaded.report);
  record_lora(loaded.lora);
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
void SessionParts::record_pretrained_load(const LoadReport& report) {
  if (report.source.empty()) return;
  summary.summary["pretrained"] = {{"weights", report.source}, {"newly_initialised", report.missing},
                                   {"ignored", report.unexpected}};
  if (!resume.checkpoint.empty()) return;
  if (std::string w = report.warning(); !w.empty()) warn(w);
}

// Which parameters a LoRA run trains, in the console, metrics.jsonl and summary.json.
void SessionParts::record_lora(const LoraReport& lora) {
  if (!lora.enabled) return;
  nlohmann::json record = {{"adapted_modules", lora.adapted.size()},
                           {"trainable_parameters", lora.trainable},
                           {"parameters", lora.total},
                           {"trained_in_full", lora.trained_in_full}};
  summary.summary["lora"] = record;
  record["event"] = "lora";
  log->emit(record);
}

void SessionParts::build_trainer() {
  TrainerConfig cfg = settings.train;
  cfg.checkpoints_dir = start.paths.checkpoints();
  cfg.checkpoint_trainable_only = settings.lora.enabled && !settings.model.value("pretrained", std::string()).empty();
  cfg.stop_at_step = start.stop_at_step;
  cfg.stop_at_epoch = start.stop_at_epoch;
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
  trainer->set_step_probe(watch.step_probe());
  if (parallel) trainer->set_parallel(parallel.get());
  log->emit({{"event", "setup"}, {"threads", threads}, {"loop_threads", own_loop_threads()},
             {"device", device.str()},
             {"train_examples", data.train->size()},
             {"eval_examples", data.eval ? data.eval->size() : 0},
             {"parameters", parameter_count(*model)}});
}

// Smoothing spreads a target over classes; a regression's one output has none.
void SessionParts::refuse_smoothing_a_regression(const TrainerConfig& cfg) const {
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

void SessionParts::resume_trainer() {
  for (const auto& w : resume.warnings) log->emit({{"event", "warning"}, {"message", w}});
  summary.summary["resumed_from"] = nullptr;
  if (!start.resume || !start.resume->state) return;
  const ResumePlan& plan = *start.resume;
  trainer->resume(*plan.state, plan.position);
  samples_at_start = plan.state->samples_seen;
  start.resume->state.reset();  // its tensors (weights, optimizer moments) are the trainer's now
  summary.summary["resumed_from"] = resume.checkpoint;
  log->emit({{"event", "resume"}, {"step", resume.step}, {"checkpoint", resume.checkpoint}});
}

}  // namespace runner
