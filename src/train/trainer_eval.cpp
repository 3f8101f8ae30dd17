// The trainer's evaluation: the dev set's loss and metrics, in the training
// precision, as Accelerate evaluates. What it means for the run (the best
// metric, early stopping) is the scheduler's to judge.
#include "train/evaluation.h"
#include "train/trainer.h"

namespace runner {

nlohmann::json Trainer::evaluate() {
  if (!eval_) return nullptr;
  // For a terminal's progress bar: the evaluation that takes the next seconds.
  events_.emit({{"event", "progress"}, {"phase", "eval"}, {"step", state_.global_step}, {"epoch", state_.epoch},
                {"total_steps", total_steps()}, {"eval_batches", eval_->batches.size()}});
  torch::NoGradGuard no_grad;
  model_->eval();
  nlohmann::json e = {{"event", "eval"}, {"step", state_.global_step}, {"epoch", state_.epoch}};
  e.update(evaluate_batches(eval_->batches));
  for (const auto& companion : eval_->companions)
    add_companion_results(e, evaluate_batches(companion.batches), companion.suffix);
  model_->train();
  return e;
}

nlohmann::json Trainer::evaluate_batches(const std::vector<TrainBatch>& batches) {
  EvalTally tally(*eval_);
  for (size_t i = 0; i < batches.size(); ++i) {
    if (parallel_ && !parallel_->evaluates_batch(i)) continue;
    tally.add(step_.forward(batches[i].tensors), batches[i]);
  }
  if (parallel_) parallel_->gather_eval(tally.in, tally.loss_sum, tally.examples);
  return tally.results(eval_->metrics);
}

}  // namespace runner
