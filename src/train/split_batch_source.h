// The data adapters of a run: a tokenized split served as training batches by
// (epoch, index), and the fixed evaluation set.
#pragma once

#include "data/batch_iterator.h"
#include "train/batch_source.h"

#include <memory>
#include <string>
#include <vector>

namespace runner {

// A collated batch as tensors on `device`; example ids read "<split>/<row>".
TrainBatch to_train_batch(const Batch& batch, const std::string& split, const torch::Device& device);

// Training batches addressed by (epoch, index): the order of an epoch is a pure
// function of (seed, epoch), so any position can be reopened exactly. Batches
// are collated ahead on a background thread while the model computes.
class SplitBatchSource : public BatchSource {
 public:
  SplitBatchSource(std::shared_ptr<const TokenizedSplit> split, std::string split_name,
                   SamplerConfig sampler, PaddingOptions padding, torch::Device device);
  long long batches_per_epoch() const override { return batches_per_epoch_; }
  void start_epoch(long long epoch) override { epoch_ = epoch; }
  TrainBatch batch(long long index) override;
  nlohmann::json state() const override;
  void load_state(const nlohmann::json& state) override;
  long long tokens_served() const { return tokens_served_; }

 private:
  std::shared_ptr<const TokenizedSplit> split_;
  std::string split_name_;
  SamplerConfig sampler_;
  PaddingOptions padding_;
  torch::Device device_;
  long long batches_per_epoch_ = 0;
  long long epoch_ = 0;
  long long tokens_served_ = 0;
  std::unique_ptr<BatchIterator> iterator_;
};

// Every batch of a labelled split in file order, without sampler padding.
// A null split gives an empty set that still names the metrics. The dataset's
// info gives the metrics, the problem type and the multi-label threshold.
EvalSet make_eval_set(const std::shared_ptr<const TokenizedSplit>& split,
                      const std::string& split_name, const DatasetInfo& info,
                      const PaddingOptions& padding, long long batch_size,
                      const torch::Device& device);

}  // namespace runner
