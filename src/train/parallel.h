// What the trainer asks of data parallelism, as a seam the parallel/ module fills;
// without one (a single process) the trainer does none of it. Every call is a
// collective that each rank makes at the same point of the loop.
#pragma once

#include "optim/optimizer.h"
#include "train/metric.h"

#include <torch/torch.h>

#include <string>
#include <vector>

namespace runner {

class ParallelHooks {
 public:
  virtual ~ParallelHooks() = default;
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  // Before a micro-batch's backward: `sync` is true only on the window's last
  // micro-batch, whose backward all-reduces the accumulated gradients.
  virtual void before_backward(const torch::Tensor& loss, bool sync) = 0;
  // After that backward: with sync, waits for the all-reduces and leaves the
  // averaged gradients in the parameters.
  virtual void after_backward(bool sync) = 0;
  // After the optimizer step (sharded optimizer: each rank's updated shard to all).
  virtual void after_optimizer_step() = 0;
  // Clips the gradients this rank holds by the global norm over every
  // parameter and returns that norm (a sharded optimizer's rank holds only its
  // own parameters' gradients, so the norm is summed across ranks).
  virtual torch::Tensor clip_grad_norm(double max_norm) = 0;
  // The mean over ranks of a scalar (the logged loss).
  virtual torch::Tensor mean(const torch::Tensor& scalar) = 0;
  // Each flag true on some rank, so that every rank takes the same decision
  // (a window with a non-finite loss or gradient is skipped by all).
  virtual std::vector<bool> any_rank(const std::vector<bool>& flags) = 0;
  // Every rank's copy of a small tensor (e.g. its random generator state), in rank order.
  virtual std::vector<torch::Tensor> gather_from_all(const torch::Tensor& local) = 0;
  // The largest signal number any rank received, so that every rank stops together.
  virtual int agree_interrupt(int local_signal) = 0;
  // Whether this rank evaluates eval batch i of n.
  virtual bool evaluates_batch(size_t i) const = 0;
  // Every rank's predictions and labels (rank order), and the summed loss and count.
  virtual void gather_eval(MetricInput& in, double& loss_sum, long long& examples) = 0;
  // The whole optimizer state from this rank's part (a sharded optimizer
  // holds only its own parameters' entries).
  virtual TensorMap full_optimizer_state(const TensorMap& local) = 0;
  // This rank's part of a whole saved optimizer state.
  virtual TensorMap local_optimizer_state(const TensorMap& full) const = 0;
  virtual void barrier(const char* what) = 0;
  // Every parameter of the model (a sharded optimizer holds only some): what
  // zero_grad clears.
  virtual const std::vector<NamedParameter>& all_parameters() const = 0;
  // A collective failed (e.g. inside backward): throws an error naming the lost ranks.
  [[noreturn]] virtual void fail(const char* what, const std::string& cause) = 0;
};

}  // namespace runner
