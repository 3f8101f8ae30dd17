// One process's membership in a data-parallel run: the TCPStore rendezvous
// and the c10d process group (Gloo on CPU; NCCL only in a CUDA build), with
// the few collectives the trainer needs. A failed collective becomes a
// DistError that names the ranks that are gone.
#pragma once

#include "parallel/worker_env.h"

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/torch.h>
#include <torch/version.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace runner {

// LibTorch 2 split a process group into a front (ProcessGroup) and per-device
// backends (Gloo, NCCL); the collectives the trainer calls exist on both, and a
// backend is what the Gloo and NCCL constructors give.
#if TORCH_VERSION_MAJOR >= 2
using CollectiveGroup = c10d::Backend;
#else
using CollectiveGroup = c10d::ProcessGroup;
#endif

// A collective failed: a peer died, or the collective timed out.
class DistError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DistContext {
 public:
  // Rendezvous at master_addr:master_port (rank 0 hosts the store) and build the
  // backend of topology.backend ("auto": NCCL with CUDA, Gloo otherwise).
  DistContext(const WorkerEnv& env, const nlohmann::json& topology_section, const torch::Device& device);
  ~DistContext();

  int rank() const { return env_.rank; }
  int world_size() const { return env_.world_size; }
  const WorkerEnv& env() const { return env_; }
  const std::string& backend() const { return backend_; }
  // Where the backend moves tensors: the GPU for NCCL, the CPU for Gloo. The
  // collectives below take tensors anywhere and give results where they came from.
  const torch::Device& device() const { return device_; }
  c10::intrusive_ptr<CollectiveGroup> group() const { return group_; }

  // Runs a collective to completion; a failure throws DistError naming the lost ranks.
  void wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what);
  void broadcast(std::vector<torch::Tensor> tensors, int root, const char* what);
  torch::Tensor all_reduce(torch::Tensor t, c10d::ReduceOp op, const char* what);
  // Every rank's (possibly differently sized) 1-D tensor, in rank order.
  std::vector<torch::Tensor> all_gather_varlen(const torch::Tensor& t, const char* what);
  void barrier(const char* what);
  // A string from rank 0 to every rank, through the store (e.g. the run directory).
  std::string share_string(const std::string& key, const std::string& value_on_rank0);

  // After a failed collective: which ranks are still here, asked through the
  // store (each survivor checks in, then waits a few seconds for the others).
  std::vector<int> lost_ranks();
  [[noreturn]] void fail(const char* what, const std::string& cause);

 private:
  WorkerEnv env_;
  std::string backend_;
  torch::Device device_;
  std::chrono::milliseconds timeout_;
  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<CollectiveGroup> group_;
};

// The backend topology.backend names for this device ("gloo" or "nccl"); throws
// InputError for nccl without CUDA.
std::string pick_backend(const std::string& configured, const torch::Device& device);

}  // namespace runner
