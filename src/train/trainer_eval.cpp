// The trainer's evaluation: the dev set's loss and metrics, the best metric and
// early stopping.
#include "model/host_read.h"
#include "registry/registry.h"
#include "train/metric.h"
#include "train/trainer.h"

namespace runner {

nlohmann::json Trainer::evaluate() {
  if (!eval_) return nullptr;
  // For a terminal's progress bar: the evaluation that takes the next seconds.
  emit({{"event", "progress"}, {"phase", "eval"}, {"step", state_.global_step}, {"epoch", state_.epoch},
        {"total_steps", total_steps_}, {"eval_batches", eval_->batches.size()}});
  torch::NoGradGuard no_grad;
  model_->eval();
  MetricInput in;
  double loss_sum = 0.0;
  long long examples = 0;
  for (size_t i = 0; i < eval_->batches.size(); ++i) {
    if (parallel_ && !parallel_->evaluates_batch(i)) continue;
    const TrainBatch& b = eval_->batches[i];
    ModelOutput out = forward(b.tensors);  // in the training precision, as Accelerate evaluates
    loss_sum += read_double(out.loss) * static_cast<double>(b.examples);
    examples += b.examples;
    torch::Tensor pred = read_to_host(out.logits.argmax(-1).to(torch::kInt64));
    torch::Tensor gold = read_to_host(b.tensors.labels.to(torch::kInt64));
    in.predictions.insert(in.predictions.end(), pred.data_ptr<int64_t>(),
                          pred.data_ptr<int64_t>() + pred.numel());
    in.labels.insert(in.labels.end(), gold.data_ptr<int64_t>(), gold.data_ptr<int64_t>() + gold.numel());
  }
  if (parallel_) parallel_->gather_eval(in, loss_sum, examples);
  model_->train();
  nlohmann::json e = {{"event", "eval"}, {"step", state_.global_step}, {"epoch", state_.epoch},
                      {"loss", examples ? loss_sum / static_cast<double>(examples) : 0.0},
                      {"examples", examples}};
  for (const auto& name : eval_->metrics)
    e[name] = instantiate<MetricFactory>(Kind::Metric, name)(in);
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
