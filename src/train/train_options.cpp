#include "train/train_options.h"

#include "recipe/sections.h"

namespace runner {
namespace {

using C = TrainerConfig;

// How long and how each step runs (declared in the order print-config shows them).
void declare_schedule_options(OptionBinding<C>& b) {
  // At most a million: more is no schedule anyone runs, and epochs x steps must fit a count.
  b.bind(opt::number("epochs", 3.0, "Passes over the training data (fractions allowed)")
             .above(0)
             .at_most(1e6),
         &C::epochs);
  b.bind(opt::integer("max_steps", 0, "Stop after this many optimizer steps; 0 = use epochs")
             .at_least(0),
         &C::max_steps);
  b.bind_choice(opt::choice("precision", {}, "fp32",
                            "fp32; bf16 autocast; fp16 autocast with dynamic loss scaling (CUDA only)"),
                &C::precision,
                {{"fp32", Precision::Fp32}, {"bf16", Precision::Bf16}, {"fp16", Precision::Fp16}});
  b.bind(opt::integer("grad_accum", 1, "Micro-batches accumulated per optimizer step").at_least(1),
         &C::grad_accum);
  b.bind(opt::number("max_grad_norm", 1.0, "Clip the global gradient L2 norm to this; 0 = off")
             .at_least(0),
         &C::max_grad_norm);
  b.bind(opt::integer("eval_every", 0, "Evaluate every N optimizer steps; 0 = only per epoch")
             .at_least(0),
         &C::eval_every);
  b.bind(opt::flag("eval_each_epoch", true, "Evaluate at the end of every epoch"),
         &C::eval_each_epoch);
  b.bind(opt::integer("log_every", 50, "Log averaged training metrics every N optimizer steps")
             .at_least(1),
         &C::log_every);
}

// When checkpoints are written and kept, and which evaluation is the best.
void declare_checkpoint_options(OptionBinding<C>& b) {
  b.bind(opt::integer("checkpoint_every", 0,
                      "Checkpoint every N optimizer steps; 0 = only at the end and on interrupt")
             .at_least(0),
         &C::checkpoint_every);
  b.bind(opt::flag("checkpoint_each_epoch", false,
                   "Also checkpoint at the end of every epoch (Transformers' save_strategy \"epoch\")"),
         &C::checkpoint_each_epoch);
  // The Trainer's default (500 steps) is minutes on a GPU and can be an hour on a
  // CPU; a bound in time loses at most this much of any run to a kill.
  b.bind(opt::number("checkpoint_every_minutes", 30.0,
                     "Also checkpoint when this many minutes passed since the last checkpoint "
                     "(fractions allowed); 0 = off")
             .at_least(0),
         &C::checkpoint_every_minutes);
  b.bind(opt::integer("keep_last", 2, "Checkpoints kept (the best and the newest are never deleted)")
             .at_least(1),
         &C::keep_last);
  b.bind(opt::text("metric_for_best", "",
                   "Eval metric that picks the best checkpoint, e.g. \"eval.f1\"; empty = the "
                   "dataset's main metric"),
         &C::metric_for_best);
  b.bind(opt::flag("greater_is_better", true,
                   "Whether a larger metric_for_best is better; unset: false for a metric whose name "
                   "ends in \"loss\" (as Transformers' Trainer) and for mse, else true")
             .default_from([](const nlohmann::json& train) {
               const auto metric = train.find("metric_for_best");
               return !(metric != train.end() && metric->is_string() &&
                        metric_lower_is_better(metric->get<std::string>()));
             }),
         &C::greater_is_better);
  b.bind(opt::integer("early_stopping_patience", 0,
                      "Stop after N evaluations without improvement; 0 = never")
             .at_least(0),
         &C::early_stopping_patience);
  b.bind(opt::flag("load_best_at_end", false,
                   "At the end, final/ and the final evaluation take the best checkpoint's weights "
                   "(Transformers' load_best_model_at_end)"),
         &C::load_best_at_end);
}

// Non-finite losses, fp16's loss scale and CUDA graphs.
void declare_numerics_options(OptionBinding<C>& b) {
  // Below 1: at 1 every target is uniform and the labels no longer matter.
  b.bind(opt::number("label_smoothing", 0.0,
                     "Mix this share of a uniform distribution into each one-hot target of the "
                     "classification loss, for training and evaluation (Transformers' "
                     "label_smoothing_factor); 0 = off")
             .at_least(0)
             .below(1),
         &C::label_smoothing);
  b.bind(opt::numbers("class_weights", {},
                      "Weight of each class in the training loss (multi-label: BCE's pos_weight of each "
                      "label), as torch's CrossEntropyLoss(weight=); empty = off"),
         &C::class_weights);
  b.bind_choice(opt::choice("class_weighting", {}, "none",
                            "balanced: class weights n_samples / (n_classes * count) from the training split "
                            "(scikit-learn's), multi-label pos_weight negatives / positives per label"),
                &C::class_weighting, {{"none", ClassWeighting::None}, {"balanced", ClassWeighting::Balanced}});
  b.bind_choice(opt::choice("nan_policy", {}, "abort",
                            "On a NaN or infinite loss: stop with the step and example ids, or skip it"),
                &C::nan_policy, {{"abort", NanPolicy::Abort}, {"skip", NanPolicy::Skip}});
  b.bind(opt::number("loss_scale_init", 65536.0, "fp16: initial dynamic loss scale").above(0),
         &C::loss_scale_init);
  b.bind(opt::integer("loss_scale_growth_interval", 2000,
                      "fp16: clean steps before the loss scale doubles")
             .at_least(1),
         &C::loss_scale_growth_interval);
  b.bind_choice(opt::choice("cuda_graphs", {}, "auto",
                            "Replay each training step's kernels as one CUDA graph per batch shape "
                            "(auto: on a GPU, when the optimizer can be captured)"),
                &C::cuda_graphs, {{"auto", CudaGraphs::Auto}, {"on", CudaGraphs::On}, {"off", CudaGraphs::Off}});
}

// A user's program that scores each evaluation (train/metric_command.h).
void declare_metric_command_options(OptionBinding<C>& b) {
  b.bind(opt::strings("metric_command", {},
                      "A program that scores each evaluation, e.g. [\"python3\", \"squad_metric.py\"]: it gets "
                      "the predictions' JSONL path as its last argument and prints one JSON object of named "
                      "numbers, logged as eval.<name>; empty = none"),
         &C::metric_command);
  // An evaluation waits for it: a bound keeps a hung program from holding the run.
  b.bind(opt::number("metric_command_timeout_s", 120.0, "Seconds the metric command may take").above(0).at_most(86400),
         &C::metric_command_timeout_s);
}

OptionBinding<TrainerConfig> declare_train_options() {
  OptionBinding<C> b;
  declare_schedule_options(b);
  declare_checkpoint_options(b);
  declare_numerics_options(b);
  declare_metric_command_options(b);
  return b;
}

}  // namespace

bool metric_is_a_loss(const std::string& metric) {
  const std::string suffix = "loss";
  return metric.size() >= suffix.size() &&
         metric.compare(metric.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool metric_lower_is_better(const std::string& metric) {
  return metric_is_a_loss(metric) || metric == "mse" || metric == "eval.mse";
}

void take_main_metric(TrainerConfig& config, const std::string& main_metric) {
  if (!config.metric_for_best.empty()) return;
  config.metric_for_best = main_metric;
  if (metric_lower_is_better(main_metric)) config.greater_is_better = false;
}

const OptionBinding<TrainerConfig>& train_options() {
  static const OptionBinding<TrainerConfig> options = declare_train_options();
  return options;
}

TrainerConfig trainer_config_from(const nlohmann::json& train_section) {
  return train_options().decode(train_section);
}

std::string precision_name(Precision p) {
  TrainerConfig c;
  c.precision = p;
  return train_options().encode(c).at("precision");
}

SectionSpec train_section() {
  SectionSpec s;
  s.name = "train";
  s.doc = "The training loop: length, precision, accumulation, clipping, evaluation, checkpoints";
  s.options = train_options().specs();
  return s;
}

}  // namespace runner
