// The data side of a run: the dataset, tokenizer and tokenized splits a
// resolved recipe describes, a BatchSource over the training split that can
// continue mid-epoch, and the fixed evaluation set.
#pragma once

#include "data/batch_iterator.h"
#include "data/dataset.h"
#include "tokenizer/tokenizer.h"
#include "train/batch_source.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace runner {

struct RunData {
  std::shared_ptr<const Dataset> dataset;
  std::shared_ptr<const Tokenizer> tokenizer;
  std::shared_ptr<const TokenizedSplit> train;
  std::shared_ptr<const TokenizedSplit> eval;  // null when the eval split has no labels
  std::string train_split, eval_split;
  PaddingOptions padding;
};

// The dataset and tokenizer of the resolved [data] and [tokenizer] sections.
RunData open_data(const nlohmann::json& data_section, const nlohmann::json& tokenizer_section);

// The files whose content the run depends on: the train and eval split files and
// the tokenizer's files. Their sha256 go into env.json and are checked on resume.
std::vector<std::string> data_content_files(const RunData& data,
                                            const nlohmann::json& tokenizer_section);

// Tokenizes (or loads from the token cache) the train and eval splits, keeps the
// first max_*_examples, and reports each split's size and skipped rows through `note`.
void tokenize_data(RunData& data, const nlohmann::json& data_section,
                   const std::function<void(const nlohmann::json&)>& note);

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

SamplerConfig train_sampler_config(const nlohmann::json& data_section, uint64_t seed);

// Every evaluation batch in file order, without sampler padding.
EvalSet make_eval_set(const RunData& data, long long batch_size, const torch::Device& device);

}  // namespace runner
