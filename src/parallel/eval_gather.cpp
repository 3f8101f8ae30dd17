// DataParallel's gather of an evaluation: each rank scored every world_size-th
// batch; rank 0's metrics read every rank's outputs, in rank order.
#include "parallel/data_parallel.h"

#include "model/host_read.h"

namespace runner {

void DataParallel::gather_eval(MetricInput& in, double& loss_sum, long long& examples) {
  auto as_tensor = [](const std::vector<long long>& v) {
    return torch::tensor(std::vector<int64_t>(v.begin(), v.end()), torch::kInt64);
  };
  // A regression tallies scores and targets (doubles), the classifications ids.
  auto as_doubles = [](const std::vector<double>& v) { return torch::tensor(v, torch::kFloat64); };
  const bool regression = in.problem == ProblemType::Regression;
  std::vector<torch::Tensor> first, second;
  if (regression) {
    first = ctx_->all_gather_varlen(as_doubles(in.scores), "gathering eval scores");
    second = ctx_->all_gather_varlen(as_doubles(in.targets), "gathering eval targets");
  } else {
    first = ctx_->all_gather_varlen(as_tensor(in.predictions), "gathering eval predictions");
    second = ctx_->all_gather_varlen(as_tensor(in.labels), "gathering eval labels");
  }
  MetricInput gathered;
  gathered.problem = in.problem;
  gathered.label_count = in.label_count;
  gathered.tag_names = in.tag_names;
  in = std::move(gathered);
  for (size_t r = 0; r < first.size(); ++r) {
    auto p = first[r].contiguous(), l = second[r].contiguous();
    if (regression) {
      in.scores.insert(in.scores.end(), p.data_ptr<double>(), p.data_ptr<double>() + p.numel());
      in.targets.insert(in.targets.end(), l.data_ptr<double>(), l.data_ptr<double>() + l.numel());
    } else {
      in.predictions.insert(in.predictions.end(), p.data_ptr<int64_t>(), p.data_ptr<int64_t>() + p.numel());
      in.labels.insert(in.labels.end(), l.data_ptr<int64_t>(), l.data_ptr<int64_t>() + l.numel());
    }
  }
  torch::Tensor sums = torch::tensor({loss_sum, static_cast<double>(examples)}, torch::kFloat64);
  sums = ctx_->all_reduce(sums, c10d::ReduceOp::SUM, "summing the eval loss");
  std::vector<double> v = read_doubles({sums[0], sums[1]});
  loss_sum = v[0];
  examples = static_cast<long long>(v[1]);
}

}  // namespace runner
