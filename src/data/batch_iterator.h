// Batches of a tokenized split, epoch after epoch, prepared ahead on a
// background thread while the model computes. The position is a plain struct
// (SamplerState) that the trainer saves in checkpoints and passes back on resume:
// the orders are functions of (seed, epoch), so resuming continues exactly.
#pragma once

#include "data/batch.h"
#include "data/sampler.h"
#include "data/tokenized_split.h"

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace runner {

struct SamplerState {
  int64_t epoch = 0;       // the epoch the next batch belongs to
  int64_t next_batch = 0;  // index of the next batch within that epoch
};

class BatchIterator {
 public:
  // prefetch_depth 0: batches are made on the caller's thread.
  BatchIterator(std::shared_ptr<const TokenizedSplit> split, SamplerConfig sampler,
                PaddingOptions padding, SamplerState start = {}, int prefetch_depth = 2);
  ~BatchIterator();
  BatchIterator(const BatchIterator&) = delete;
  BatchIterator& operator=(const BatchIterator&) = delete;

  // The next batch, or nullopt once at the end of each epoch (the state then
  // points at the next epoch's first batch).
  std::optional<Batch> next();
  // Where the next call to next() continues; save this to resume.
  SamplerState state() const { return state_; }
  int64_t batches_per_epoch() const;

 private:
  struct Item {
    SamplerState at;
    std::optional<Batch> batch;  // nullopt: end of epoch `at.epoch`
  };
  Item make_item(SamplerState at, const std::vector<SampledIndex>& order) const;
  void produce(SamplerState at);

  std::shared_ptr<const TokenizedSplit> split_;
  SamplerConfig sampler_;
  PaddingOptions padding_;
  std::vector<int64_t> lengths_;
  SamplerState state_;
  int depth_;
  // Synchronous mode: the current epoch's order.
  std::vector<SampledIndex> order_;
  int64_t order_epoch_ = -1;
  // Prefetch mode.
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Item> queue_;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread worker_;
};

}  // namespace runner
