#include "dist/data_parallel.h"

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

DataParallel::DataParallel(std::shared_ptr<DistContext> ctx, std::vector<NamedParameter> params,
                           bool shard_optimizer, int64_t bucket_bytes)
    : ctx_(std::move(ctx)), params_(std::move(params)), shard_optimizer_(shard_optimizer) {
  owners_ = shard_optimizer_ ? partition_parameters(params_, ctx_->world_size())
                             : std::vector<int>(params_.size(), ctx_->rank());
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
  slot_.assign(params_.size(), {0, 0});
  int64_t bytes = 0;
  for (size_t k = params_.size(); k-- > 0;) {
    const torch::Tensor& t = params_[k].tensor;
    int64_t size = t.numel() * static_cast<int64_t>(t.element_size());
    if (buckets_.empty() || (bytes > 0 && bytes + size > bucket_bytes)) {
      buckets_.emplace_back();
      bytes = 0;
    }
    Bucket& b = buckets_.back();
    slot_[k] = {buckets_.size() - 1, b.params.size()};
    b.offsets.push_back(b.params.empty() ? 0 : b.offsets.back() + params_[b.params.back()].tensor.numel());
    b.params.push_back(k);
    bytes += size;
  }
  for (Bucket& b : buckets_) {
    const torch::Tensor& last = params_[b.params.back()].tensor;
    b.flat = torch::zeros({b.offsets.back() + last.numel()}, last.options().requires_grad(false));
  }
}

// The tensor hook runs before the gradient is added to .grad, which still holds
// what the window's earlier micro-batches accumulated (no all-reduce for them:
// DDP's no_sync), so the bucket gets the sum of both.
void DataParallel::gradient_ready(size_t i, const torch::Tensor& grad) {
  if (!syncing_) return;
  auto [bi, pos] = slot_[i];
  Bucket& b = buckets_[bi];
  torch::NoGradGuard no_grad;
  torch::Tensor view = b.flat.narrow(0, b.offsets[pos], grad.numel());
  view.copy_(grad.reshape({-1}));
  const torch::Tensor& earlier = params_[i].tensor.grad();
  if (earlier.defined()) view.add_(earlier.reshape({-1}));
  if (++b.ready < b.params.size()) return;
  std::vector<torch::Tensor> one = {b.flat};
  b.work = ctx_->group()->allreduce(one);
}

void DataParallel::before_backward(const torch::Tensor&, bool sync) {
  syncing_ = sync;
  for (Bucket& b : buckets_) {
    b.ready = 0;
    b.work.reset();
  }
}

void DataParallel::after_backward(bool sync) {
  if (!sync) return;
  syncing_ = false;
  auto start = std::chrono::steady_clock::now();
  torch::NoGradGuard no_grad;
  const double scale = 1.0 / static_cast<double>(world_size());
  for (Bucket& b : buckets_) {
    if (!b.work)
      throw std::logic_error("parameter " + params_[b.params[b.ready]].name +
                             " got no gradient; every parameter must take part in the loss");
    ctx_->wait(b.work, "the gradient all-reduce");
    b.flat.mul_(scale);
    for (size_t pos = 0; pos < b.params.size(); ++pos) {
      torch::Tensor& p = params_[b.params[pos]].tensor;
      p.mutable_grad().copy_(b.flat.narrow(0, b.offsets[pos], p.numel()).view(p.sizes()));
    }
  }
  wait_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ZeRO-1's all-gather: each rank's updated parameters, flattened into one
// buffer per owner, broadcast from that owner.
void DataParallel::after_optimizer_step() {
  if (!shard_optimizer_) return;
  torch::NoGradGuard no_grad;
  for (int owner = 0; owner < world_size(); ++owner) {
    std::vector<torch::Tensor> mine;
    for (size_t i = 0; i < params_.size(); ++i)
      if (owners_[i] == owner) mine.push_back(params_[i].tensor);
    if (mine.empty()) continue;
    std::vector<torch::Tensor> flat_parts;
    for (auto& t : mine) flat_parts.push_back(t.reshape({-1}));
    torch::Tensor flat = torch::cat(flat_parts);
    ctx_->broadcast({flat}, owner, "gathering the sharded optimizer's parameters");
    int64_t at = 0;
    for (auto& t : mine) {
      t.copy_(flat.narrow(0, at, t.numel()).view(t.sizes()));
      at += t.numel();
    }
  }
}

torch::Tensor DataParallel::mean(const torch::Tensor& scalar) {
  torch::Tensor sum = ctx_->all_reduce(scalar.detach().to(torch::kFloat64).reshape({1}).clone(),
                                       c10d::ReduceOp::SUM, "averaging the loss");
  return (sum / static_cast<double>(world_size())).reshape({});
}

int DataParallel::agree_interrupt(int local_signal) {
  torch::Tensor t = torch::full({1}, local_signal, torch::kInt64);
  return static_cast<int>(ctx_->all_reduce(t, c10d::ReduceOp::MAX, "agreeing on a stop signal").item<int64_t>());
}

bool DataParallel::evaluates_batch(size_t i) const {
  return static_cast<int>(i % static_cast<size_t>(world_size())) == rank();
}

void DataParallel::gather_eval(MetricInput& in, double& loss_sum, long long& examples) {
  auto as_tensor = [](const std::vector<long long>& v) {
    return torch::tensor(std::vector<int64_t>(v.begin(), v.end()), torch::kInt64);
  };
  auto preds = ctx_->all_gather_varlen(as_tensor(in.predictions), "gathering eval predictions");
  auto labels = ctx_->all_gather_varlen(as_tensor(in.labels), "gathering eval labels");
  in = MetricInput{};
  for (size_t r = 0; r < preds.size(); ++r) {
    auto p = preds[r].contiguous(), l = labels[r].contiguous();
    in.predictions.insert(in.predictions.end(), p.data_ptr<int64_t>(), p.data_ptr<int64_t>() + p.numel());
    in.labels.insert(in.labels.end(), l.data_ptr<int64_t>(), l.data_ptr<int64_t>() + l.numel());
  }
  torch::Tensor sums = torch::tensor({loss_sum, static_cast<double>(examples)}, torch::kFloat64);
  sums = ctx_->all_reduce(sums, c10d::ReduceOp::SUM, "summing the eval loss");
  loss_sum = sums[0].item<double>();
  examples = static_cast<long long>(sums[1].item<double>());
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
  torch::Tensor bytes = torch::zeros({len.item<int64_t>()}, torch::kUInt8);
  if (root == rank()) std::copy(meta.begin(), meta.end(), bytes.data_ptr<uint8_t>());
  ctx_->broadcast({bytes}, root, "gathering the optimizer state");
  auto j = nlohmann::json::parse(std::string(bytes.data_ptr<uint8_t>(), bytes.data_ptr<uint8_t>() + bytes.numel()));
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
