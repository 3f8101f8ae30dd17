#include "train/evaluation.h"

#include "model/host_read.h"

namespace runner {

void EvalTally::add(const ModelOutput& out, const TrainBatch& b) {
  loss_sum += read_double(out.loss) * static_cast<double>(b.examples);
  examples += b.examples;
  torch::Tensor pred = read_to_host(out.logits.argmax(-1).to(torch::kInt64));
  torch::Tensor gold = read_to_host(b.tensors.labels.to(torch::kInt64));
  in.predictions.insert(in.predictions.end(), pred.data_ptr<int64_t>(),
                        pred.data_ptr<int64_t>() + pred.numel());
  in.labels.insert(in.labels.end(), gold.data_ptr<int64_t>(), gold.data_ptr<int64_t>() + gold.numel());
}

nlohmann::json EvalTally::results(const std::vector<std::string>& metrics) const {
  nlohmann::json r = {{"loss", examples ? loss_sum / static_cast<double>(examples) : 0.0},
                      {"examples", examples}};
  r.update(compute_metrics(metrics, in));
  // Under one key, so that readers of the numeric keys (report, compare, loggers) pass it by.
  if (in.problem == ProblemType::SingleLabel) {
    nlohmann::json details = per_class_details(in);
    if (!details.is_null()) r["per_class"] = std::move(details);
  }
  return r;
}

}  // namespace runner
