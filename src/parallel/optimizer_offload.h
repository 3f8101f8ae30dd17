// topology.offload = "optimizer" (ZeRO-Offload's optimizer half): the
// optimizer's state and fp32 master copies of the parameters live in host
// memory (pinned when the parameters are on a GPU, so the copies are DMA);
// each step copies the gradients device -> host, runs the wrapped optimizer
// on the host, and copies the updated parameters back. The devices are
// parameters so that a CPU-only test can run the same mechanism with both
// on the CPU; the recipe rules allow it only on CUDA.
#pragma once

#include "optim/optimizer.h"

#include <functional>
#include <memory>
#include <vector>

namespace runner {

using OptimizerMaker = std::function<std::unique_ptr<Optimizer>(std::vector<NamedParameter>)>;

class OffloadedOptimizer : public Optimizer {
 public:
  // device_params: the model's parameters where they train; make_inner builds
  // the real optimizer over host copies of them (same names).
  OffloadedOptimizer(std::vector<NamedParameter> device_params, const OptimizerMaker& make_inner,
                     const torch::Device& host = torch::kCPU);

  // The wrapped optimizer's entries, host tensors named as without offload,
  // so checkpoints do not depend on it.
  TensorMap state() const override { return inner_->state(); }
  // Also takes the master weights from the parameters, which a resume has just loaded.
  void load_state(const TensorMap& state) override;

  const std::vector<torch::Tensor>& master_weights() const { return masters_; }

 protected:
  // The wrapped optimizer runs on the host: its lr and skip flag are copied
  // there (counted reads: offloading waits for the device every step anyway).
  void apply(const StepInputs& in) override;

 private:
  std::vector<torch::Tensor> masters_;  // fp32, on the host: what the inner optimizer steps
  std::vector<torch::Tensor> host_grads_;
  std::unique_ptr<Optimizer> inner_;
};

}  // namespace runner
