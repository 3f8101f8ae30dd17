// A training session: the run directory's records, the data, the model and the
// trainer, then the final evaluation, the exported model and summary.json.
#include "run/run_training.h"

#include "model/export.h"
#include "model/model_factory.h"
#include "run/run_data.h"
#include "run/run_parallel.h"
#include "run/run_records.h"
#include "run/run_setup.h"
#include "train/interrupt.h"
#include "train/trainer.h"
#include "train/training_state.h"
#include "util/diagnostic.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <iostream>

namespace fs = std::filesystem;

namespace runner {
namespace {

using Clock = std::chrono::steady_clock;

struct SessionStart {
  RunPaths paths;
  bool resuming = false;
  RecipeOrigin origin;
  std::vector<std::string> command_line;
  std::vector<std::string> allow_changes;
  std::shared_ptr<DistContext> dist;  // null in a single-process run
};

std::string run_name_of(const Recipe& recipe) {
  std::string name = recipe.section("run").value("name", std::string());
  return name.empty() ? fs::path(recipe.path).stem().string() : name;
}

// Where the tokenizer files for final/ come from.
std::string tokenizer_folder(const nlohmann::json& tokenizer_section) {
  fs::path p = tokenizer_section.value("path", std::string());
  if (p.empty()) return {};
  return fs::is_directory(p) ? p.string() : p.parent_path().string();
}

// Where a resumed session starts: the newest checkpoint that verifies (each newer
// one that does not is named in a warning), or step 0 when there is none.
struct ResumePoint {
  std::optional<TrainingState> state;
  std::string checkpoint;
  std::vector<std::string> warnings;
  long long step() const { return state ? state->global_step : 0; }
};

ResumePoint find_resume_point(const RunPaths& paths) {
  ResumePoint rp;
  auto warn = [&rp](const std::string& m) { rp.warnings.push_back(m); };
  std::optional<std::string> ckpt = newest_valid_checkpoint(paths.checkpoints(), warn);
  if (!ckpt) {
    rp.warnings.push_back("no valid checkpoint in " + paths.checkpoints() +
                          "; training starts again from step 0");
    return rp;
  }
  rp.state = load_training_state(*ckpt);
  rp.checkpoint = *ckpt;
  return rp;
}

// env.json on a new run; a resume is added to it.
void record_environment(const SessionStart& s, const std::vector<std::string>& files,
                        const nlohmann::json& run, int threads, const torch::Device& device) {
  if (s.resuming) {
    nlohmann::json env = read_json_file(s.paths.env());
    env["recipe"] = origin_json(s.origin);
    env["resumes"].push_back({{"utc", utc_timestamp()}, {"command_line", s.command_line},
                              {"threads", threads}});
    write_json_atomic(s.paths.env(), env);
    return;
  }
  EnvInputs in;
  in.command_line = s.command_line;
  in.seeds = {{"run.seed", run.at("seed")}, {"data_order_seed", run.at("seed")}};
  in.hashed_files = files;
  in.threads = threads;
  in.device = device.str();
  nlohmann::json env = environment_info(in);
  env["recipe"] = origin_json(s.origin);
  env["run_dir"] = s.paths.dir;
  write_json_atomic(s.paths.env(), env);
}

long long parameter_count(SequenceClassifier& model) {
  long long n = 0;
  for (const auto& p : model.parameters()) n += p.numel();
  return n;
}

// Everything a session builds before the first step.
struct Session {
  torch::Device device = torch::kCPU;
  RunData data;
  EvalSet eval;
  std::shared_ptr<SequenceClassifier> model;
  std::unique_ptr<SplitBatchSource> batches;
  std::unique_ptr<Trainer> trainer;
  long long samples_at_start = 0;
  std::string resumed_from;
  std::string metric_for_best;  // the recipe's, or the dataset's main metric
  std::unique_ptr<DataParallel> parallel;
};

void build_session(const Recipe& r, const SessionStart& s, RunLoggers& log, StepWatch& watch,
                   Session& out) {
  const nlohmann::json run = r.section("run"), data = r.section("data"), train = r.section("train");
  const nlohmann::json optimizer = r.section("optimizer");
  int threads = apply_thread_setting(run);
  split_threads(run, s.dist.get());
  apply_determinism(run);
  out.device = pick_device(run);
  if (std::string w = bf16_warning(train.at("precision"), out.device); !w.empty()) {
    std::cerr << "warning: " << w << "\n";
    log.emit({{"event", "warning"}, {"message", w}});
  }
  out.data = open_data(data, r.section("tokenizer"));
  if (is_primary(s.dist.get()))
    record_environment(s, data_content_files(out.data, r.section("tokenizer")), run, threads, out.device);
  tokenize_data(out.data, data, [&log](const nlohmann::json& e) { log.emit(e); });
  const DatasetInfo& info = out.data.dataset->info();
  torch::manual_seed(run.at("seed").get<uint64_t>());
  out.model = make_model(r.section("model"), ModelContext{info.num_labels, {info.label_names}});
  out.model->to(out.device);
  if (s.dist) broadcast_module(*s.dist, *out.model);
  out.eval = make_eval_set(out.data, data.at("eval_batch_size"), out.device);
  SamplerConfig sampler = train_sampler_config(data, run.at("seed").get<uint64_t>());
  shard_sampler(sampler, s.dist.get());
  out.batches = std::make_unique<SplitBatchSource>(out.data.train, out.data.train_split, sampler,
                                                   out.data.padding, out.device);
  TrainerConfig cfg = trainer_config_from(train);
  cfg.checkpoints_dir = s.paths.checkpoints();
  if (cfg.metric_for_best.empty()) cfg.metric_for_best = info.main_metric;
  out.metric_for_best = cfg.metric_for_best;
  out.trainer = std::make_unique<Trainer>(
      cfg, out.model, make_rank_optimizer(r, s.dist, *out.model, out.parallel),
      make_schedule(r.section("scheduler"), optimizer.at("lr")), *out.batches,
      out.data.eval ? &out.eval : nullptr, log.all());
  out.trainer->set_checkpoint_hook(watch.checkpoint_hook());
  if (out.parallel) out.trainer->set_parallel(out.parallel.get());
  log.emit({{"event", "setup"}, {"threads", threads}, {"device", out.device.str()},
            {"train_examples", out.data.train->size()},
            {"eval_examples", out.data.eval ? out.data.eval->size() : 0},
            {"parameters", parameter_count(*out.model)}});
}

// The evaluation of the final model: the last one if it was at the last step,
// else a new one (evaluation is deterministic, so a resumed run gets the same).
nlohmann::json final_evaluation(Session& s, const TrainOutcome& outcome) {
  if (outcome.last_eval.is_object() && outcome.last_eval.value("step", -1LL) == outcome.global_step)
    return outcome.last_eval;
  nlohmann::json e = s.trainer->evaluate();
  return e;
}

// final/ is written next to itself and renamed into place, so that a run killed
// while exporting never leaves a half-written model folder.
void export_final_model(Session& s, const RunPaths& paths, const nlohmann::json& tokenizer_section) {
  std::string tmp = paths.final_model() + ".tmp";
  fs::remove_all(tmp);
  export_hf_folder(*s.model, tmp, tokenizer_folder(tokenizer_section));
  fs::remove_all(paths.final_model());
  fs::rename(tmp, paths.final_model());
  fsync_directory(paths.dir);
}

double previous_wall_seconds(const RunPaths& paths) {
  try {
    return read_json_file(paths.summary()).value("total_wall_seconds", 0.0);
  } catch (const std::exception&) {
    return 0.0;
  }
}

struct SummaryWriter {
  const RunPaths& paths;
  Clock::time_point started = Clock::now();
  double previous_wall = 0.0;
  nlohmann::json summary;
  bool enabled = true;  // rank 0 alone writes it

  void write(const std::string& status) {
    if (!enabled) return;
    double wall = std::chrono::duration<double>(Clock::now() - started).count();
    summary["status"] = status;
    summary["run_dir"] = paths.dir;
    summary["updated_utc"] = utc_timestamp();
    summary["wall_seconds"] = wall;
    summary["total_wall_seconds"] = previous_wall + wall;
    write_json_atomic(paths.summary(), summary);
  }
};

void summarize_outcome(nlohmann::json& sum, const Session& s, const TrainOutcome& out) {
  long long samples = out.samples - s.samples_at_start;
  double secs = out.train_seconds;
  sum["global_step"] = out.global_step;
  sum["total_steps"] = s.trainer->total_steps();
  sum["samples_seen"] = out.samples;
  sum["train_seconds"] = secs;
  sum["samples_per_s"] = secs > 0 ? static_cast<double>(samples) / secs : 0.0;
  sum["tokens_per_s"] = secs > 0 ? static_cast<double>(s.batches->tokens_served()) / secs : 0.0;
  sum["stopped_early"] = out.status == TrainStatus::EarlyStopped;
  if (!out.best.is_null()) {
    sum["best"] = out.best;
    sum["best"]["metric"] = s.metric_for_best;
  }
}

void resume_trainer(ResumePoint& rp, const RunLoggers& log, Session& s) {
  for (const auto& w : rp.warnings) log.emit({{"event", "warning"}, {"message", w}});
  if (!rp.state) return;
  s.trainer->resume(*rp.state);
  s.samples_at_start = rp.state->samples_seen;
  s.resumed_from = rp.checkpoint;
  log.emit({{"event", "resume"}, {"step", rp.step()}, {"checkpoint", rp.checkpoint}});
  rp.state.reset();  // the tensors now live in the model and optimizer
}

int finish_session(const Recipe& recipe, const SessionStart& start, Session& s, RunLoggers& log,
                   SummaryWriter& summary) {
  TrainOutcome out = s.trainer->train();
  summarize_outcome(summary.summary, s, out);
  if (out.status == TrainStatus::Interrupted) {
    summary.summary["signal"] = out.signal;
    log.emit({{"event", "end"}, {"status", "interrupted"}, {"signal", out.signal}});
    summary.write("interrupted");
    return interrupt_exit_code(out.signal);
  }
  summary.summary["final"] = final_evaluation(s, out);
  if (is_primary(start.dist.get())) export_final_model(s, start.paths, recipe.section("tokenizer"));
  summary.summary["final_model"] = start.paths.final_model();
  log.emit({{"event", "end"}, {"status", "completed"}, {"final", summary.summary["final"]}});
  summary.write("completed");
  return 0;
}

int run_session(const Recipe& recipe, const SessionStart& start) {
  install_interrupt_handlers();
  const bool primary = is_primary(start.dist.get());
  SummaryWriter summary{start.paths, Clock::now(), 0.0, nlohmann::json::object(), primary};
  if (start.resuming) summary.previous_wall = previous_wall_seconds(start.paths);
  summary.summary = {{"run_name", run_name_of(recipe)}, {"started_utc", utc_timestamp()}};
  summary.write("running");
  std::unique_ptr<RunLoggers> log;
  StepWatch watch;
  Session s;
  try {
    ResumePoint rp;
    if (start.resuming) {
      rp = find_resume_point(start.paths);
      if (primary) cut_event_logs(start.paths, rp.step());  // before the loggers reopen the files
    }
    log = primary ? std::make_unique<RunLoggers>(recipe.section("run"), start.paths, start.resuming)
                  : std::make_unique<RunLoggers>();
    log->add(&watch);
    build_session(recipe, start, *log, watch, s);
    resume_trainer(rp, *log, s);
    summary.summary["resumed_from"] =
        s.resumed_from.empty() ? nlohmann::json() : nlohmann::json(s.resumed_from);
    return finish_session(recipe, start, s, *log, summary);
  } catch (const std::exception& e) {
    auto* input = dynamic_cast<const InputError*>(&e);
    summary.summary["error"] = input ? input->diagnostic().format() : std::string(e.what());
    if (log) log->emit({{"event", "end"}, {"status", "failed"}, {"error", summary.summary["error"]}});
    summary.write("failed");
    throw;
  }
}

// Before a resume touches the run directory: the resolved recipe and the
// content of the data and tokenizer files must be what the run started with.
void check_resume_allowed(const Recipe& recipe, const RunPaths& paths,
                          const std::vector<std::string>& allowed) {
  std::vector<RunChange> changes = recipe_changes(read_json_file(paths.recipe_resolved()),
                                                  nlohmann::json(recipe.resolved));
  RunData data = open_data(recipe.section("data"), recipe.section("tokenizer"));
  nlohmann::json env = read_json_file(paths.env());
  for (auto& c : content_changes(env.value("content_sha256", nlohmann::json::object()),
                                 content_hashes(data_content_files(data, recipe.section("tokenizer")))))
    changes.push_back(std::move(c));
  check_changes(changes, allowed, paths.dir);
}

int resume_session(const Recipe& recipe, const SessionStart& start) {
  check_resume_allowed(recipe, start.paths, start.allow_changes);
  if (!is_primary(start.dist.get())) return run_session(recipe, start);
  write_resolved_recipe(recipe, start.paths);
  std::cerr << fmt::format("resuming {}\n", start.paths.dir);
  return run_session(recipe, start);
}

}  // namespace

// Under data parallelism rank 0 decides the run directory and every rank is told it.
int run_recipe(const Recipe& recipe, const RunOptions& options) {
  const nlohmann::json run = recipe.section("run");
  std::string name = run_name_of(recipe);
  std::shared_ptr<DistContext> dist = join_workers(recipe);
  const bool primary = is_primary(dist.get());
  RecipeOrigin origin{fs::absolute(recipe.path).string(), options.overrides};
  if (options.resume_auto) {
    std::string dir = primary ? newest_unfinished_run(run.at("output_dir"), name) : std::string();
    dir = agree_on(dist.get(), "resume_dir", dir);
    if (!dir.empty()) {
      SessionStart s{RunPaths{dir}, true, origin, options.command_line, options.allow_changes};
      s.dist = dist;
      return resume_session(recipe, s);
    }
    if (primary)
      std::cerr << fmt::format("no unfinished run of '{}' under {}; starting a new one\n", name,
                               run.at("output_dir").get<std::string>());
  }
  RunPaths paths;
  if (primary) {
    paths = create_run_dir(run.at("output_dir"), name);
    std::cerr << fmt::format("run directory: {}\n", paths.dir);
    copy_given_recipe(recipe, paths);
    write_resolved_recipe(recipe, paths);
  }
  paths.dir = agree_on(dist.get(), "run_dir", paths.dir);
  SessionStart s{paths, false, origin, options.command_line, {}};
  s.dist = dist;
  return run_session(recipe, s);
}

int resume_run(const ResumeOptions& options) {
  RunPaths paths{fs::absolute(options.run_dir).lexically_normal().string()};
  if (!paths.dir.empty() && paths.dir.back() == '/') paths.dir.pop_back();
  nlohmann::json env = read_json_file(paths.env());
  RecipeOrigin origin = origin_from_env(env, paths.env());
  origin.overrides.insert(origin.overrides.end(), options.overrides.begin(), options.overrides.end());
  if (!fs::exists(origin.path)) {
    std::string copy = paths.recipe_as_given() + fs::path(origin.path).extension().string();
    std::cerr << fmt::format("warning: the recipe {} is gone; resuming with the copy {}\n",
                             origin.path, copy);
    origin.path = copy;
  }
  RecipeRequest request{origin.path, origin.overrides, true, options.caps};
  RecipeLoad load = load_recipe(request, registry());
  std::cerr << format_all(load.diags);
  if (!load.recipe) return 2;
  SessionStart s{paths, true, origin, options.command_line, options.allow_changes};
  s.dist = join_workers(*load.recipe);
  return resume_session(*load.recipe, s);
}

}  // namespace runner
