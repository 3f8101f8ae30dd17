#include "parallel/process_group.h"
#include "model/host_read.h"

#include "util/diagnostic.h"

// LibTorch's headers hide each backend behind the macro its own build defines;
// Debian's libtorch_cpu is built with Gloo. NCCL exists only in a CUDA build,
// whose meson setup defines RUNNER_WITH_NCCL.
#define USE_C10D_GLOO 1
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#ifdef RUNNER_WITH_NCCL
#define USE_C10D_NCCL 1
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string>
#include <thread>

namespace runner {
namespace {

using namespace std::chrono_literals;

// LibTorch 2.4 made libuv the TCPStore's default transport, and a LibTorch built
// without libuv (Debian 13's 2.6) refuses it before it opens a socket; the
// classic transport is in every build, so that one is taken instead.
c10::intrusive_ptr<c10d::Store> open_tcp_store(const std::string& addr, c10d::TCPStoreOptions o) {
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
  try {
    return c10::make_intrusive<c10d::TCPStore>(addr, o);
  } catch (const std::exception& e) {
    if (std::string(e.what()).find("without libuv") == std::string::npos) throw;
    o.useLibUV = false;
  }
#endif
  return c10::make_intrusive<c10d::TCPStore>(addr, o);
}

c10::intrusive_ptr<c10d::Store> connect_store(const WorkerEnv& env, std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions o;
  o.port = static_cast<std::uint16_t>(env.master_port);
  o.isServer = env.rank == 0;
  o.numWorkers = env.world_size;
  o.waitWorkers = true;
  o.timeout = timeout;
  try {
    return open_tcp_store(env.master_addr, o);
  } catch (const std::exception& e) {
    throw InputError(make_error(
        {}, "topology",
        fmt::format("rank {} of {} could not meet the others at {}:{} ({}): {}", env.rank,
                    env.world_size, env.master_addr, env.master_port, env.source, e.what()),
        "check MASTER_ADDR/MASTER_PORT (a free port, reachable from every node) and that every "
        "rank was started"));
  }
}

c10::intrusive_ptr<CollectiveGroup> make_gloo(const c10::intrusive_ptr<c10d::Store>& store,
                                                 const WorkerEnv& env, std::chrono::milliseconds timeout) {
  auto opts = c10d::ProcessGroupGloo::Options::create(timeout);
  // Gloo connects the ranks over the interface that reaches the master address;
  // on one machine the loopback device does.
  if (env.master_addr == "127.0.0.1" || env.master_addr == "localhost")
    opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  else
    opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  auto prefixed = c10::make_intrusive<c10d::PrefixStore>("gloo", store);
  return c10::make_intrusive<c10d::ProcessGroupGloo>(prefixed, env.rank, env.world_size, opts);
}

c10::intrusive_ptr<CollectiveGroup> make_nccl(const c10::intrusive_ptr<c10d::Store>& store,
                                                 const WorkerEnv& env, std::chrono::milliseconds timeout) {
#ifdef RUNNER_WITH_NCCL
  auto opts = c10d::ProcessGroupNCCL::Options::create();
  opts->timeout = timeout;
  auto prefixed = c10::make_intrusive<c10d::PrefixStore>("nccl", store);
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(prefixed, env.rank, env.world_size, opts);
#else
  (void)store, (void)env, (void)timeout;
  throw InputError(make_error({}, "topology.backend", "this build has no NCCL (a CPU-only LibTorch)",
                              "use backend = \"gloo\" or \"auto\""));
#endif
}

std::string join_ranks(const std::vector<int>& ranks) { return fmt::format("{}", fmt::join(ranks, ", ")); }

}  // namespace

std::string pick_backend(const std::string& configured, const torch::Device& device) {
  if (configured == "gloo") return "gloo";
  if (configured == "nccl" && !device.is_cuda())
    throw InputError(make_error({}, "topology.backend", "backend = \"nccl\" needs run.device on CUDA",
                                "use backend = \"auto\" (Gloo on CPU)"));
  if (configured == "nccl") return "nccl";
  return device.is_cuda() ? "nccl" : "gloo";
}

DistContext::DistContext(const WorkerEnv& env, const nlohmann::json& topology, const torch::Device& device)
    : env_(env),
      backend_(pick_backend(topology.value("backend", std::string("auto")), device)),
      device_(backend_ == "nccl" ? device : torch::Device(torch::kCPU)),
      timeout_(std::chrono::seconds(topology.value("timeout_s", 300LL))) {
  store_ = connect_store(env_, timeout_);
  group_ = backend_ == "nccl" ? make_nccl(store_, env_, timeout_) : make_gloo(store_, env_, timeout_);
}

DistContext::~DistContext() = default;

void DistContext::wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what) {
  try {
    work->wait(timeout_);
  } catch (const std::exception& e) {
    fail(what, e.what());
  }
}

void DistContext::broadcast(std::vector<torch::Tensor> tensors, int root, const char* what) {
  c10d::BroadcastOptions o;
  o.rootRank = root;
  for (auto& t : tensors) {
    std::vector<torch::Tensor> one = {t.to(device_)};
    wait(group_->broadcast(one, o), what);
    if (!one[0].is_same(t)) t.copy_(one[0]);
  }
}

torch::Tensor DistContext::all_reduce(torch::Tensor t, c10d::ReduceOp op, const char* what) {
  std::vector<torch::Tensor> one = {t.to(device_).contiguous()};
  c10d::AllreduceOptions o;
  o.reduceOp = op;
  wait(group_->allreduce(one, o), what);
  return one[0].to(t.device());
}

std::vector<torch::Tensor> DistContext::all_gather_varlen(const torch::Tensor& local, const char* what) {
  const torch::Tensor t = local.to(device_);
  auto counts = torch::TensorOptions(torch::kInt64).device(device_);
  auto n = torch::full({1}, t.numel(), counts);
  std::vector<std::vector<torch::Tensor>> counts_out(1);
  for (int r = 0; r < world_size(); ++r) counts_out[0].push_back(torch::empty({1}, counts));
  std::vector<torch::Tensor> counts_in = {n};
  wait(group_->allgather(counts_out, counts_in), what);
  int64_t most = 0;
  for (auto& c : counts_out[0]) most = std::max(most, read_int(c));
  // Gloo gathers equal sizes: pad to the longest and cut each back to its count.
  auto padded = torch::zeros({most}, t.options());
  padded.narrow(0, 0, t.numel()).copy_(t.reshape({-1}));
  std::vector<std::vector<torch::Tensor>> out(1);
  for (int r = 0; r < world_size(); ++r) out[0].push_back(torch::empty({most}, t.options()));
  std::vector<torch::Tensor> in = {padded};
  wait(group_->allgather(out, in), what);
  std::vector<torch::Tensor> result;
  for (int r = 0; r < world_size(); ++r)
    result.push_back(out[0][static_cast<size_t>(r)]
                         .narrow(0, 0, read_int(counts_out[0][static_cast<size_t>(r)]))
                         .to(local.device()));
  return result;
}

void DistContext::barrier(const char* what) { wait(group_->barrier(), what); }

std::string DistContext::share_string(const std::string& key, const std::string& value) {
  try {
    if (rank() == 0) store_->set("share/" + key, std::vector<uint8_t>(value.begin(), value.end()));
    auto bytes = store_->get("share/" + key);
    return std::string(bytes.begin(), bytes.end());
  } catch (const std::exception& e) {
    fail("sharing the run directory", e.what());
  }
}

std::vector<int> DistContext::lost_ranks() {
  try {
    store_->setTimeout(10s);
    store_->add("lost/" + std::to_string(rank()), 1);
    std::vector<int> lost;
    auto deadline = std::chrono::steady_clock::now() + 5s;
    for (;;) {
      lost.clear();
      for (int r = 0; r < world_size(); ++r)
        if (!store_->check({"lost/" + std::to_string(r)})) lost.push_back(r);
      if (lost.empty() || std::chrono::steady_clock::now() > deadline) return lost;
      std::this_thread::sleep_for(200ms);
    }
  } catch (const std::exception&) {
    return {0};  // the store lives in rank 0: unreachable means rank 0 is gone
  }
}

void DistContext::fail(const char* what, const std::string& full_cause) {
  std::string cause = full_cause.substr(0, full_cause.find('\n'));  // no C++ backtrace
  std::vector<int> lost = lost_ranks();
  std::string who = lost.empty() ? "no rank is missing (the collective timed out or was misused)"
                    : lost.size() == 1 ? fmt::format("lost rank {}", lost[0])
                                       : fmt::format("lost ranks {}", join_ranks(lost));
  throw DistError(fmt::format("rank {} of {}: {} failed: {}; {}. Resume the run from its last "
                              "checkpoint once every rank can run (runner resume RUN_DIR under "
                              "the same launcher)",
                              rank(), world_size(), what, who, cause));
}

}  // namespace runner
