#include "data/batch_iterator.h"

namespace runner {

BatchIterator::BatchIterator(std::shared_ptr<const TokenizedSplit> split, SamplerConfig sampler,
                             PaddingOptions padding, SamplerState start, int prefetch_depth)
    : split_(std::move(split)),
      sampler_(sampler),
      padding_(padding),
      lengths_(split_->lengths()),
      state_(start),
      depth_(prefetch_depth) {
  if (depth_ > 0) worker_ = std::thread([this, start] { produce(start); });
}

BatchIterator::~BatchIterator() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
}

int64_t BatchIterator::batches_per_epoch() const {
  const auto n = static_cast<int64_t>(split_->size());
  const int64_t per_rank = (n + sampler_.world_size - 1) / sampler_.world_size;
  // Not (per_rank + batch_size - 1) / batch_size: that overflows for a huge batch size.
  return per_rank / sampler_.batch_size + (!sampler_.drop_last && per_rank % sampler_.batch_size != 0);
}

BatchIterator::Item BatchIterator::make_item(SamplerState at,
                                             const std::vector<SampledIndex>& order) const {
  if (at.next_batch >= batches_per_epoch()) return {at, std::nullopt};
  const auto first = static_cast<size_t>(at.next_batch * sampler_.batch_size);
  const size_t last = std::min(order.size(), first + static_cast<size_t>(sampler_.batch_size));
  std::vector<SampledIndex> rows(order.begin() + static_cast<std::ptrdiff_t>(first),
                                 order.begin() + static_cast<std::ptrdiff_t>(last));
  return {at, collate(*split_, rows, padding_)};
}

// The worker walks the same positions the consumer will ask for, in order.
void BatchIterator::produce(SamplerState at) {
  try {
    while (true) {
      std::vector<SampledIndex> order = epoch_order(sampler_, lengths_, at.epoch);
      for (;; ++at.next_batch) {
        Item item = make_item(at, order);
        bool end = !item.batch;
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return stop_ || queue_.size() < static_cast<size_t>(depth_); });
        if (stop_) return;
        queue_.push_back(std::move(item));
        changed_.notify_all();
        if (end) break;
      }
      at = {at.epoch + 1, 0};
    }
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = std::current_exception();
    changed_.notify_all();
  }
}

std::optional<Batch> BatchIterator::next() {
  Item item;
  if (depth_ > 0) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !queue_.empty() || error_; });
    if (queue_.empty()) std::rethrow_exception(error_);
    item = std::move(queue_.front());
    queue_.pop_front();
    changed_.notify_all();
  } else {
    if (order_epoch_ != state_.epoch) {
      order_ = epoch_order(sampler_, lengths_, state_.epoch);
      order_epoch_ = state_.epoch;
    }
    item = make_item(state_, order_);
  }
  state_ = item.batch ? SamplerState{item.at.epoch, item.at.next_batch + 1}
                      : SamplerState{item.at.epoch + 1, 0};
  return std::move(item.batch);
}

}  // namespace runner
