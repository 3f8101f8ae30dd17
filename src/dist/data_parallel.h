// Data parallelism over a DistContext, as the trainer's ParallelHooks:
// gradients averaged in ~25 MB buckets whose c10d all-reduce starts from
// autograd hooks as soon as a bucket's last gradient is computed, so that
// communication overlaps the rest of the backward pass (what torch's
// DistributedDataParallel does; its c10d::Reducer cannot be used from C++ here
// because Debian's libtorch-dev lacks the dist-autograd headers reducer.hpp
// includes); evaluation gathered across ranks; ZeRO-1 optimizer sharding.
#pragma once

#include "dist/process_group.h"
#include "optim/optimizer.h"
#include "train/parallel.h"

#include <memory>
#include <vector>

namespace runner {

constexpr int64_t kGradientBucketBytes = 25 * 1024 * 1024;

// Rank 0's parameters and buffers to every rank, so that all start equal.
void broadcast_module(DistContext& ctx, torch::nn::Module& module);

// Which rank owns (steps the optimizer state of) each parameter: greedy by
// size, in parameter order, so every rank computes the same split.
std::vector<int> partition_parameters(const std::vector<NamedParameter>& params, int world_size);
// This rank's parameters under that split.
std::vector<NamedParameter> owned_parameters(const std::vector<NamedParameter>& params,
                                             const std::vector<int>& owners, int rank);

class DataParallel : public ParallelHooks {
 public:
  // shard_optimizer: the optimizer holds only this rank's parameters
  // (owned_parameters); after each step every parameter comes from its owner.
  DataParallel(std::shared_ptr<DistContext> ctx, std::vector<NamedParameter> params,
               bool shard_optimizer, int64_t bucket_bytes = kGradientBucketBytes);
  ~DataParallel() override;

  int rank() const override { return ctx_->rank(); }
  int world_size() const override { return ctx_->world_size(); }
  void before_backward(const torch::Tensor& loss, bool sync) override;
  void after_backward(bool sync) override;
  void after_optimizer_step() override;
  torch::Tensor mean(const torch::Tensor& scalar) override;
  int agree_interrupt(int local_signal) override;
  bool evaluates_batch(size_t i) const override;
  void gather_eval(MetricInput& in, double& loss_sum, long long& examples) override;
  TensorMap full_optimizer_state(const TensorMap& local) override;
  TensorMap local_optimizer_state(const TensorMap& full) const override;
  void barrier(const char* what) override { ctx_->barrier(what); }
  const std::vector<NamedParameter>& all_parameters() const override { return params_; }
  [[noreturn]] void fail(const char* what, const std::string& cause) override { ctx_->fail(what, cause); }

  const std::vector<int>& owners() const { return owners_; }
  size_t bucket_count() const { return buckets_.size(); }
  // Seconds spent in after_backward waiting for all-reduces the backward pass did not hide.
  double wait_seconds() const { return wait_seconds_; }

 private:
  struct Bucket {
    std::vector<size_t> params;  // indices into params_
    std::vector<int64_t> offsets;
    torch::Tensor flat;          // the gradients, back to back
    size_t ready = 0;
    c10::intrusive_ptr<c10d::Work> work;
  };
  void assign_buckets(int64_t bucket_bytes);
  void gradient_ready(size_t param, const torch::Tensor& grad);
  TensorMap receive_state_from(int root, const TensorMap& local);

  std::shared_ptr<DistContext> ctx_;
  std::vector<NamedParameter> params_;
  bool shard_optimizer_;
  std::vector<int> owners_;
  std::vector<Bucket> buckets_;
  std::vector<std::pair<size_t, size_t>> slot_;  // param -> (bucket, position in it)
  std::vector<unsigned> hooks_;  // the tensor hooks' handles, removed with this object
  bool syncing_ = false;  // this backward is a window's last: reduce
  double wait_seconds_ = 0.0;
};

}  // namespace runner
