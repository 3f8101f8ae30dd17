// The trainer's evaluation: the dev set's loss and metrics, the best metric and
// early stopping.
#include "train/evaluation.h"
#include "train/trainer.h"

namespace runner {

nlohmann::json Trainer::evaluate() {
  if (!eval_) return nullptr;
  // For a terminal's progress bar: the evaluation that takes the next seconds.
  emit({{"event", "progress"}, {"phase", "eval"}, {"step", state_.global_step}, {"epoch", state_.epoch},
        {"total_steps", total_steps_}, {"eval_batches", eval_->batches.size()}});
  torch::NoGradGuard no_grad;
  model_->eval();
  EvalTally tally;
  for (size_t i = 0; i < eval_->batches.size(); ++i) {
    if (parallel_ && !parallel_->evaluates_batch(i)) continue;
    const TrainBatch& b = eval_->batches[i];
    tally.add(forward(b.tensors), b);  // in the training precision, as Accelerate evaluates
  }
  if (parallel_) parallel_->gather_eval(tally.in, tally.loss_sum, tally.examples);
  model_->train();
  nlohmann::json e = {{"event", "eval"}, {"step", state_.global_step}, {"epoch", state_.epoch}};
  e.update(tally.results(eval_->metrics));
  return e;
}

void Trainer::maybe_evaluate(bool epoch_end) {
  if (!eval_ || (epoch_end && !config_.eval_each_epoch)) return;
  if (last_eval_.is_object() && last_eval_.value("step", -1LL) == state_.global_step) return;
  nlohmann::json e = evaluate();
  record_eval(e);
  emit(e);
  last_eval_ = e;
}

// Updates the best metric and the early-stopping counter; a new best gets a
// checkpoint at this step so that it is always on disk.
void Trainer::record_eval(nlohmann::json& e) {
  std::string metric = best_metric_name();
  if (!e.contains(metric)) return;
  double v = e[metric];
  BestMetricState& b = state_.best;
  bool better = !b.has_best || (config_.greater_is_better ? v > b.value : v < b.value);
  if (better) {
    b = {true, v, state_.global_step, checkpoint_name(state_.global_step), 0};
    e["is_best"] = true;
    save_best_ = true;
  } else if (++b.evals_without_improvement >= config_.early_stopping_patience &&
             config_.early_stopping_patience > 0) {
    stop_early_ = true;
    e["early_stop"] = true;
  }
}

std::string Trainer::best_metric_name() const {
  std::string m = config_.metric_for_best;
  if (m.rfind("eval.", 0) == 0) m = m.substr(5);
  if (m.empty() && eval_ && !eval_->metrics.empty()) m = eval_->metrics.front();
  return m;
}

}  // namespace runner
