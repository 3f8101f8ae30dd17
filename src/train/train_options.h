// The [train] section: its options, each declared once together with the
// TrainerConfig field it writes. Torch-free.
#pragma once

#include "registry/option_binding.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

enum class Precision { Fp32, Bf16, Fp16 };
enum class NanPolicy { Abort, Skip };
enum class CudaGraphs { Auto, On, Off };
enum class ClassWeighting { None, Balanced };

std::string precision_name(Precision p);  // "fp32", "bf16", "fp16"

struct TrainerConfig {
  double epochs{};
  long long max_steps{};
  Precision precision{};
  long long grad_accum{};
  double max_grad_norm{};
  long long eval_every{};
  bool eval_each_epoch{};
  long long log_every{};
  long long checkpoint_every{};
  bool checkpoint_each_epoch{};
  double checkpoint_every_minutes{};
  long long keep_last{};
  std::string metric_for_best;  // "f1" or "eval.f1"; empty = the eval set's first metric
  bool greater_is_better{};
  long long early_stopping_patience{};
  bool load_best_at_end{};
  double label_smoothing{};
  std::vector<double> class_weights;  // one per class (multi-label: BCE's pos_weight per label)
  ClassWeighting class_weighting{};
  NanPolicy nan_policy{};
  double loss_scale_init{};
  long long loss_scale_growth_interval{};
  CudaGraphs cuda_graphs{};
  std::vector<std::string> metric_command;  // argv of a metric program (train/metric_command.h)
  double metric_command_timeout_s{};
  // Not an option: end the run after this optimizer step (0 = never), with the
  // schedule still that of the whole run. `runner run --stop-at-step` sets it for
  // a sweep's successive halving; it is no part of the recipe, so a resume with
  // another stop is no change.
  long long stop_at_step{};
  // The same at the end of epoch N: the trainer turns it into that epoch's last step.
  long long stop_at_epoch{};
  // Not an option: the run directory's checkpoints/ folder; empty = no checkpoints.
  std::string checkpoints_dir;
  // Not an option: checkpoints hold only the trainable parameters and the
  // frozen ones' sha256 (a LoRA run over model.pretrained, which rebuilds them).
  bool checkpoint_trainable_only{};
  // Not an option: the loss weights the run trains with (train/class_weights.h).
  std::vector<double> loss_weights;
};

// Whether a metric's name says lower is better ("eval.loss"): the rule
// Transformers' Trainer applies, and the default of greater_is_better.
bool metric_is_a_loss(const std::string& metric);
// A loss, or the mean squared error ("eval.mse"): what greater_is_better's
// default and the best checkpoint treat as lower-is-better.
bool metric_lower_is_better(const std::string& metric);

// With metric_for_best unset, the dataset's main metric picks the best
// checkpoint, and greater_is_better (whose default read no metric) follows it.
void take_main_metric(TrainerConfig& config, const std::string& main_metric);

// Every [train] option, bound to its field.
const OptionBinding<TrainerConfig>& train_options();

// The settings of a resolved [train] section (declared defaults for what it lacks).
TrainerConfig trainer_config_from(const nlohmann::json& train_section);

}  // namespace runner
