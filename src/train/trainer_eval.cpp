// The trainer's evaluation: the dev set's loss and metrics, in the training
// precision, as Accelerate evaluates. What it means for the run (the best
// metric, early stopping) is the scheduler's to judge.
#include "train/evaluation.h"
#include "train/interrupt.h"
#include "train/metric_command.h"
#include "train/trainer.h"

#include <filesystem>

namespace runner {

nlohmann::json Trainer::evaluate() {
  if (!eval_) return nullptr;
  // For a terminal's progress bar: the evaluation that takes the next seconds.
  events_.emit({{"event", "progress"}, {"phase", "eval"}, {"step", state_.global_step}, {"epoch", state_.epoch},
                {"total_steps", total_steps()}, {"eval_batches", eval_->batches.size()}});
  torch::NoGradGuard no_grad;
  model_->eval();
  nlohmann::json e = {{"event", "eval"}, {"step", state_.global_step}, {"epoch", state_.epoch}};
  std::vector<nlohmann::json> records;
  e.update(evaluate_batches(eval_->batches, config_.metric_command.empty() ? nullptr : &records));
  if (!config_.metric_command.empty()) e.update(command_metrics(records, e));
  for (const auto& companion : eval_->companions)
    add_companion_results(e, evaluate_batches(companion.batches), companion.suffix);
  model_->train();
  return e;
}

nlohmann::json Trainer::evaluate_batches(const std::vector<TrainBatch>& batches,
                                         std::vector<nlohmann::json>* records) {
  EvalTally tally(*eval_);
  tally.keep_records = records != nullptr;
  for (size_t i = 0; i < batches.size(); ++i) {
    if (parallel_ && !parallel_->evaluates_batch(i)) continue;
    tally.add(step_.forward(batches[i].tensors), batches[i]);
  }
  if (parallel_) parallel_->gather_eval(tally.in, tally.loss_sum, tally.examples);
  if (records) *records = std::move(tally.records);
  return tally.results(eval_->metrics);
}

// The predictions go beside the checkpoints (run/eval_predictions/step-N.jsonl),
// where the user can run the command by hand; a run without a folder uses /tmp.
nlohmann::json Trainer::command_metrics(const std::vector<nlohmann::json>& records, const nlohmann::json& built_in) {
  namespace fs = std::filesystem;
  const fs::path run = config_.checkpoints_dir.empty() ? fs::temp_directory_path() / "runner-eval"
                                                       : fs::path(config_.checkpoints_dir).parent_path();
  const std::string path =
      (run / "eval_predictions" / ("step-" + std::to_string(state_.global_step) + ".jsonl")).string();
  const MetricCommand command{config_.metric_command, config_.metric_command_timeout_s};
  nlohmann::json answer = run_metric_command(command, records, path, built_in, [] { return pending_interrupt() != 0; });
  const std::string& best = config_.metric_for_best;
  const std::string bare = best.rfind("eval.", 0) == 0 ? best.substr(5) : best;
  if (!bare.empty() && !built_in.contains(bare) && !answer.contains(bare))
    throw MetricCommandError(make_error({}, "train.metric_command",
                                        "the metric command's answer " + answer.dump() + " has no \"" + bare +
                                            "\", which train.metric_for_best = \"" + best + "\" ranks by",
                                        "return \"" + bare + "\" from the command, or rank by another metric"));
  return answer;
}

}  // namespace runner
