#include "parallel/data_parallel.h"
#include "model/host_read.h"

#include "optim/grad_clip.h"
#include "util/json_input.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <set>

namespace runner {

void broadcast_module(DistContext& ctx, torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> all;
  for (auto& p : module.parameters()) all.push_back(p);
  for (auto& b : module.buffers()) all.push_back(b);
  ctx.broadcast(all, 0, "broadcasting the parameters from rank 0");
}

std::vector<int> partition_parameters(const std::vector<NamedParameter>& params, int world) {
  std::vector<int64_t> load(static_cast<size_t>(world), 0);
  std::vector<int> owners;
  for (const auto& p : params) {
    auto least = std::min_element(load.begin(), load.end()) - load.begin();
    owners.push_back(static_cast<int>(least));
    load[static_cast<size_t>(least)] += p.tensor.numel();
  }
  return owners;
}

std::vector<NamedParameter> owned_parameters(const std::vector<NamedParameter>& params,
                                             const std::vector<int>& owners, int rank) {
  std::vector<NamedParameter> mine;
  for (size_t i = 0; i < params.size(); ++i)
    if (owners[i] == rank) mine.push_back(params[i]);
  return mine;
}

GradientExchange gradient_exchange(bool shard_optimizer, const std::string& backend) {
  if (!shard_optimizer) return GradientExchange::AllReduce;
  return backend == "nccl" ? GradientExchange::ReduceScatter : GradientExchange::ReduceToOwners;
}

DataParallel::DataParallel(std::shared_ptr<DistContext> ctx, std::vector<NamedParameter> params,
                           bool shard_optimizer, int64_t bucket_bytes)
    : ctx_(std::move(ctx)),
      params_(std::move(params)),
      shard_optimizer_(shard_optimizer),
      exchange_(gradient_exchange(shard_optimizer, ctx_->backend())) {
  owners_ = shard_optimizer_ ? partition_parameters(params_, ctx_->world_size())
                             : std::vector<int>(params_.size(), ctx_->rank());
  owned_ = owned_parameters(params_, owners_, ctx_->rank());
  owned_elements_.assign(static_cast<size_t>(ctx_->world_size()), 0);
  for (size_t i = 0; i < params_.size(); ++i)
    owned_elements_[static_cast<size_t>(owners_[i])] += params_[i].tensor.numel();
  assign_buckets(bucket_bytes);
  for (size_t i = 0; i < params_.size(); ++i)
    hooks_.push_back(
        params_[i].tensor.register_hook([this, i](torch::Tensor grad) { gradient_ready(i, grad); }));
}

DataParallel::~DataParallel() {
  for (size_t i = 0; i < params_.size(); ++i) params_[i].tensor.remove_hook(hooks_[i]);
}

// Buckets fill in reverse parameter order, roughly the order backward produces
// the gradients, so the first bucket is ready (and on the wire) earliest.
void DataParallel::assign_buckets(int64_t bucket_bytes) {
  std::vector<std::vector<size_t>> groups;
  int64_t bytes = 0;
  for (size_t k = params_.size(); k-- > 0;) {
    const torch::Tensor& t = params_[k].tensor;
    int64_t size = t.numel() * static_cast<int64_t>(t.element_size());
    if (groups.empty() || (bytes > 0 && bytes + size > bucket_bytes)) {
      groups.emplace_back();
      bytes = 0;
    }
    groups.back().push_back(k);
    bytes += size;
  }
  slot_.assign(params_.size(), {0, 0});
  for (const auto& members : groups) {
    buckets_.push_back(make_bucket(members));
    const Bucket& b = buckets_.back();
    for (size_t pos = 0; pos < b.params.size(); ++pos) slot_[b.params[pos]] = {buckets_.size() - 1, pos};
  }
}

DataParallel::Bucket DataParallel::make_bucket(const std::vector<size_t>& members) const {
  const size_t world = static_cast<size_t>(world_size());
  Bucket b;
  b.segment_length.assign(world, 0);
  for (size_t owner = 0; owner < world; ++owner)
    for (size_t k : members) {
      if (owners_[k] != static_cast<int>(owner)) continue;
      b.params.push_back(k);
      b.offsets.push_back(b.segment_length[owner]);
      b.segment_length[owner] += params_[k].tensor.numel();
    }
  // A reduce_scatter takes equal parts, so there every segment is padded to the longest.
  const bool padded = exchange_ == GradientExchange::ReduceScatter;
  const int64_t longest = *std::max_element(b.segment_length.begin(), b.segment_length.end());
  int64_t at = 0;
  for (size_t owner = 0; owner < world; ++owner) {
    b.segment_begin.push_back(at);
    at += padded ? longest : b.segment_length[owner];
  }
  auto options = params_[members.front()].tensor.options().requires_grad(false);
  b.flat = torch::zeros({at}, options);
  if (padded) b.received = torch::zeros({longest}, options);
  const int64_t mine = b.segment_length[static_cast<size_t>(rank())];
  if (exchange_ == GradientExchange::ReduceToOwners)
    b.received = torch::zeros({static_cast<int64_t>(world) * mine}, options);
  return b;
}

// The tensor hook runs before the gradient is added to .grad, which still holds
// what the window's earlier micro-batches accumulated (no exchange for them:
// DDP's no_sync), so the bucket gets the sum of both.
void DataParallel::gradient_ready(size_t i, const torch::Tensor& grad) {
  if (!syncing_) return;
  auto [bi, pos] = slot_[i];
  Bucket& b = buckets_[bi];
  torch::NoGradGuard no_grad;
  const int64_t begin = b.segment_begin[static_cast<size_t>(owners_[i])] + b.offsets[pos];
  torch::Tensor view = b.flat.narrow(0, begin, grad.numel());
  view.copy_(grad.reshape({-1}));
  const torch::Tensor& earlier = params_[i].tensor.grad();
  if (earlier.defined()) view.add_(earlier.reshape({-1}));
  if (++b.ready == b.params.size()) launch(b);
}

void DataParallel::launch(Bucket& b) {
  const auto me = static_cast<size_t>(rank());
  auto& group = *ctx_->group();
  if (exchange_ == GradientExchange::AllReduce) {
    std::vector<torch::Tensor> one = {b.flat};
    b.works.push_back(group.allreduce(one));
    count("allreduce", b.flat.numel(), b.flat.numel());
  } else if (exchange_ == GradientExchange::ReduceToOwners) {
    // One all-to-all sends each owner its segment from every rank; the owner
    // sums the rows it receives (after_backward): one collective per bucket
    // instead of one `reduce` per owner.
    std::vector<int64_t> out_counts(b.segment_length.size(), b.segment_length[me]);
    std::vector<int64_t> in_counts = b.segment_length;
    b.works.push_back(group.alltoall_base(b.received, b.flat, out_counts, in_counts));
    const int64_t others = static_cast<int64_t>(b.segment_length.size()) - 1;
    count("alltoall", b.flat.numel() - b.segment_length[me], others * b.segment_length[me]);
  } else {
    std::vector<torch::Tensor> out = {b.received};
    std::vector<std::vector<torch::Tensor>> in(1);
    for (size_t owner = 0; owner < b.segment_length.size(); ++owner)
      in[0].push_back(b.flat.narrow(0, b.segment_begin[owner], b.received.numel()));
    b.works.push_back(group.reduce_scatter(out, in));
    count("reduce_scatter", b.flat.numel(), b.received.numel());
  }
}

void DataParallel::count(const char* collective, int64_t in, int64_t out) {
  CollectiveCount& c = counts_[collective];
  ++c.calls;
  c.elements_in += in;
  c.elements_out += out;
}

void DataParallel::before_backward(const torch::Tensor&, bool sync) {
  syncing_ = sync;
  for (Bucket& b : buckets_) {
    b.ready = 0;
    b.works.clear();
  }
}

// Leaves the averaged gradients in the parameters this rank owns (every
// parameter without sharding); the others keep this rank's own sums, which
// nothing reads before zero_grad.
void DataParallel::after_backward(bool sync) {
  if (!sync) return;
  syncing_ = false;
  auto start = std::chrono::steady_clock::now();
  torch::NoGradGuard no_grad;
  const double scale = 1.0 / static_cast<double>(world_size());
  const auto me = static_cast<size_t>(rank());
  for (Bucket& b : buckets_) {
    if (b.ready < b.params.size())
      throw std::logic_error("a parameter in the gradient bucket of " + params_[b.params.front()].name +
                             " got no gradient; every parameter must take part in the loss");
    for (auto& w : b.works) ctx_->wait(w, "the gradient exchange");
    torch::Tensor mine = exchange_ == GradientExchange::AllReduce
                             ? b.flat.narrow(0, b.segment_begin[me], b.segment_length[me])
                         : exchange_ == GradientExchange::ReduceScatter
                             ? b.received
                             : b.received.view({world_size(), b.segment_length[me]}).sum(0);
    mine.mul_(scale);
    for (size_t pos = 0; pos < b.params.size(); ++pos) {
      torch::Tensor& p = params_[b.params[pos]].tensor;
      if (owners_[b.params[pos]] != rank()) continue;
      p.mutable_grad().copy_(mine.narrow(0, b.offsets[pos], p.numel()).view(p.sizes()));
    }
  }
  wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ZeRO-1's all-gather: each rank's updated parameters back to back, padded to
// the largest share, gathered from every rank.
void DataParallel::after_optimizer_step() {
  if (!shard_optimizer_) return;
  torch::NoGradGuard no_grad;
  const int64_t longest = *std::max_element(owned_elements_.begin(), owned_elements_.end());
  auto options = params_.front().tensor.options().requires_grad(false);
  std::vector<torch::Tensor> in = {torch::zeros({longest}, options)};
  int64_t at = 0;
  for (const auto& p : owned_) {
    in[0].narrow(0, at, p.tensor.numel()).copy_(p.tensor.reshape({-1}));
    at += p.tensor.numel();
  }
  std::vector<std::vector<torch::Tensor>> out(1);
  for (int r = 0; r < world_size(); ++r) out[0].push_back(torch::empty({longest}, options));
  ctx_->wait(ctx_->group()->allgather(out, in), "gathering the sharded optimizer's parameters");
  count("allgather", longest, longest * world_size());
  std::vector<int64_t> next(static_cast<size_t>(world_size()), 0);
  for (size_t i = 0; i < params_.size(); ++i) {
    const auto owner = static_cast<size_t>(owners_[i]);
    torch::Tensor& t = params_[i].tensor;
    if (owners_[i] != rank()) t.copy_(out[0][owner].narrow(0, next[owner], t.numel()).view(t.sizes()));
    next[owner] += t.numel();
  }
}

torch::Tensor DataParallel::clip_grad_norm(double max_norm) {
  if (!shard_optimizer_) return runner::clip_grad_norm(params_, max_norm);
  // The global norm is the root of the sum of each rank's squared share.
  torch::Tensor local = global_grad_norm(owned_).to(torch::kFloat64);
  torch::Tensor squares = ctx_->all_reduce((local * local).reshape({1}), c10d::ReduceOp::SUM,
                                           "summing the gradient norm");
  torch::Tensor total = squares.sqrt().reshape({}).to(torch::kFloat32);
  clip_to_norm(owned_, total, max_norm);
  return total;
}

torch::Tensor DataParallel::mean(const torch::Tensor& scalar) {
  torch::Tensor sum = ctx_->all_reduce(scalar.detach().to(torch::kFloat64).reshape({1}).clone(),
                                       c10d::ReduceOp::SUM, "averaging the loss");
  return (sum / static_cast<double>(world_size())).reshape({});
}

std::vector<bool> DataParallel::any_rank(const std::vector<bool>& flags) {
  torch::Tensor t = torch::zeros({static_cast<int64_t>(flags.size())}, torch::kInt64);
  for (size_t i = 0; i < flags.size(); ++i) t[static_cast<int64_t>(i)] = flags[i] ? 1 : 0;
  torch::Tensor host = read_to_host(ctx_->all_reduce(t, c10d::ReduceOp::MAX, "agreeing on skipping a step"));
  std::vector<bool> out;
  for (size_t i = 0; i < flags.size(); ++i) out.push_back(host.data_ptr<int64_t>()[i] != 0);
  return out;
}

int DataParallel::agree_interrupt(int local_signal) {
  torch::Tensor t = torch::full({1}, local_signal, torch::kInt64);
  return static_cast<int>(read_int(ctx_->all_reduce(t, c10d::ReduceOp::MAX, "agreeing on a stop signal")));
}

bool DataParallel::evaluates_batch(size_t i) const {
  return static_cast<int>(i % static_cast<size_t>(world_size())) == rank();
}

std::vector<torch::Tensor> DataParallel::gather_from_all(const torch::Tensor& local) {
  auto flat = ctx_->all_gather_varlen(local.reshape({-1}), "gathering every rank's state");
  for (auto& t : flat) t = t.reshape(local.sizes());
  return flat;
}

namespace {
// "<param>/exp_avg" belongs to parameter "<param>".
std::string parameter_of(const std::string& key) { return key.substr(0, key.rfind('/')); }
}  // namespace

TensorMap DataParallel::local_optimizer_state(const TensorMap& full) const {
  if (!shard_optimizer_) return full;
  std::set<std::string> mine;
  for (size_t i = 0; i < params_.size(); ++i)
    if (owners_[i] == rank()) mine.insert(params_[i].name);
  TensorMap out;
  for (const auto& [k, v] : full)
    if (mine.count(parameter_of(k))) out[k] = v;
  return out;
}

TensorMap DataParallel::full_optimizer_state(const TensorMap& local) {
  if (!shard_optimizer_) return local;
  TensorMap full;
  for (int root = 0; root < world_size(); ++root)
    for (auto& [k, v] : receive_state_from(root, local)) full[k] = v;
  return full;
}

// One rank's entries to all: their names, dtypes and shapes as JSON bytes, then
// the tensors themselves.
TensorMap DataParallel::receive_state_from(int root, const TensorMap& local) {
  std::string meta;
  if (root == rank()) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& [k, v] : local) j.push_back({k, static_cast<int>(v.scalar_type()), v.sizes().vec()});
    meta = j.dump();
  }
  torch::Tensor len = torch::full({1}, static_cast<int64_t>(meta.size()), torch::kInt64);
  ctx_->broadcast({len}, root, "gathering the optimizer state");
  torch::Tensor bytes = torch::zeros({read_int(len)}, torch::kUInt8);
  if (root == rank()) std::copy(meta.begin(), meta.end(), bytes.data_ptr<uint8_t>());
  ctx_->broadcast({bytes}, root, "gathering the optimizer state");
  auto j = parse_json(std::string_view(reinterpret_cast<const char*>(bytes.data_ptr<uint8_t>()),
                                      static_cast<size_t>(bytes.numel())),
                     {fmt::format("the optimizer state list of rank {}", root)});
  TensorMap out;
  for (const auto& e : j) {
    std::string name = e[0];
    torch::Tensor t = root == rank() ? local.at(name).contiguous().clone()
                                     : torch::empty(e[2].get<std::vector<int64_t>>(),
                                                    static_cast<torch::ScalarType>(e[1].get<int>()));
    ctx_->broadcast({t.reshape({-1})}, root, "gathering the optimizer state");
    out[name] = t;
  }
  return out;
}

}  // namespace runner
