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
  EvalTally tally(*eval_);
  for (size_t i = 0; i < eval_->batches.size(); ++i) {
    if (parallel_ && !parallel_->evaluates_batch(i)) continue;
    const TrainBatch& b = eval_->batches[i];
    tally.add(step_.forward(b.tensors), b);
  }
  if (parallel_) parallel_->gather_eval(tally.in, tally.loss_sum, tally.examples);
  model_->train();
  nlohmann::json e = {{"event", "eval"}, {"step", state_.global_step}, {"epoch", state_.epoch}};
  e.update(tally.results(eval_->metrics));
  return e;
}

}  // namespace runner
