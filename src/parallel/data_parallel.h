// Data parallelism over a DistContext, as the trainer's ParallelHooks:
// gradients averaged in ~25 MB buckets whose c10d all-reduce starts from
// autograd hooks as soon as a bucket's last gradient is computed, so that
// communication overlaps the rest of the backward pass (what torch's
// DistributedDataParallel does; its c10d::Reducer cannot be used from C++ here
// because Debian's libtorch-dev lacks the dist-autograd headers reducer.hpp
// includes); evaluation gathered across ranks; ZeRO-1 optimizer sharding.
//
// ZeRO-1 (topology.shard_optimizer) is a reduce-scatter of the gradients (each
// rank receives only the sums of the parameters it owns), a step of each
// rank's own shard, and an all-gather of the updated parameters. LibTorch
// 1.13's Gloo has no reduce_scatter, so there each bucket holds its owners'
// gradients in contiguous segments, one all-to-all sends each segment to its
// owner, and the owner sums what it received; backends that have one (NCCL)
// get one reduce_scatter per bucket.
#pragma once

#include "parallel/process_group.h"
#include "optim/optimizer.h"
#include "train/parallel.h"

#include <map>
#include <memory>
#include <string>
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

// How the gradients of a window's last backward reach the ranks.
enum class GradientExchange {
  AllReduce,       // every rank gets every averaged gradient
  ReduceToOwners,  // ZeRO-1 where the backend lacks reduce_scatter (Gloo in LibTorch 1.13): all-to-all + sum
  ReduceScatter,   // ZeRO-1 with the backend's reduce_scatter (NCCL)
};
GradientExchange gradient_exchange(bool shard_optimizer, const std::string& backend);

// What one kind of collective moved on this rank, in tensor elements: what the
// rank put in, and what it got back as a result.
struct CollectiveCount {
  long long calls = 0;
  long long elements_in = 0;
  long long elements_out = 0;
};

class DataParallel : public ParallelHooks {
 public:
  // shard_optimizer: the optimizer holds only this rank's parameters
  // (owned_parameters), whose gradients alone this rank receives; after each
  // step every parameter comes from its owner.
  DataParallel(std::shared_ptr<DistContext> ctx, std::vector<NamedParameter> params,
               bool shard_optimizer, int64_t bucket_bytes = kGradientBucketBytes);
  ~DataParallel() override;

  int rank() const override { return ctx_->rank(); }
  int world_size() const override { return ctx_->world_size(); }
  void before_backward(const torch::Tensor& loss, bool sync) override;
  void after_backward(bool sync) override;
  void after_optimizer_step() override;
  torch::Tensor clip_grad_norm(double max_norm) override;
  torch::Tensor mean(const torch::Tensor& scalar) override;
  std::vector<bool> any_rank(const std::vector<bool>& flags) override;
  std::vector<torch::Tensor> gather_from_all(const torch::Tensor& local) override;
  int agree_interrupt(int local_signal) override;
  bool evaluates_batch(size_t i) const override;
  void gather_eval(MetricInput& in, double& loss_sum, long long& examples) override;
  TensorMap full_optimizer_state(const TensorMap& local) override;
  TensorMap local_optimizer_state(const TensorMap& full) const override;
  void barrier(const char* what) override { ctx_->barrier(what); }
  const std::vector<NamedParameter>& all_parameters() const override { return params_; }
  [[noreturn]] void fail(const char* what, const std::string& cause) override { ctx_->fail(what, cause); }

  const std::vector<int>& owners() const { return owners_; }
  GradientExchange exchange() const { return exchange_; }
  size_t bucket_count() const { return buckets_.size(); }
  // The gradient and parameter collectives this object ran, by c10d name
  // ("allreduce", "alltoall", "reduce_scatter", "allgather"): what the rank
  // sent to others and received from them.
  const std::map<std::string, CollectiveCount>& collective_counts() const { return counts_; }
  // Seconds spent in after_backward waiting for all-reduces the backward pass did not hide.
  double wait_seconds() const { return wait_seconds_; }

 private:
  // A bucket's gradients grouped by owner: owner r's segment starts at
  // segment_begin[r] of flat (packed, or every segment padded to the longest
  // for a reduce_scatter) and holds segment_length[r] elements.
  struct Bucket {
    std::vector<size_t> params;   // indices into params_, grouped by owner
    std::vector<int64_t> offsets; // of each within its owner's segment
    std::vector<int64_t> segment_begin, segment_length;
    torch::Tensor flat;           // every rank's contribution
    torch::Tensor received;       // this rank's segment: summed (reduce_scatter), or every rank's (all-to-all)
    size_t ready = 0;
    std::vector<c10::intrusive_ptr<c10d::Work>> works;
  };
  void assign_buckets(int64_t bucket_bytes);
  Bucket make_bucket(const std::vector<size_t>& members) const;
  void gradient_ready(size_t param, const torch::Tensor& grad);
  void launch(Bucket& b);
  void count(const char* collective, int64_t in, int64_t out);
  TensorMap receive_state_from(int root, const TensorMap& local);

  std::shared_ptr<DistContext> ctx_;
  std::vector<NamedParameter> params_;
  bool shard_optimizer_;
  GradientExchange exchange_;
  std::vector<int> owners_;
  std::vector<NamedParameter> owned_;     // this rank's (all of them without sharding)
  std::vector<int64_t> owned_elements_;   // per rank
  std::vector<Bucket> buckets_;
  std::vector<std::pair<size_t, size_t>> slot_;  // param -> (bucket, position in it)
  std::vector<unsigned> hooks_;  // the tensor hooks' handles, removed with this object
  bool syncing_ = false;  // this backward is a window's last: reduce
  double wait_seconds_ = 0.0;
  std::map<std::string, CollectiveCount> counts_;
};

}  // namespace runner
