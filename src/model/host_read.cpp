#include "model/host_read.h"

#include <atomic>

namespace runner {
namespace {

std::atomic<long long> reads{0};

}  // namespace

double read_double(const torch::Tensor& scalar) {
  ++reads;
  return scalar.item<double>();
}

int64_t read_int(const torch::Tensor& scalar) {
  ++reads;
  return scalar.item<int64_t>();
}

bool read_bool(const torch::Tensor& scalar) {
  ++reads;
  return scalar.item<bool>();
}

std::vector<double> read_doubles(const std::vector<torch::Tensor>& scalars) {
  if (scalars.empty()) return {};
  std::vector<torch::Tensor> flat;
  flat.reserve(scalars.size());
  for (const auto& s : scalars) flat.push_back(s.detach().reshape({1}).to(torch::kFloat64));
  torch::Tensor host = read_to_host(torch::cat(flat));
  const double* v = host.data_ptr<double>();
  return std::vector<double>(v, v + host.numel());
}

torch::Tensor read_to_host(const torch::Tensor& t) {
  ++reads;
  return t.detach().to(torch::kCPU).contiguous();
}

long long host_read_count() { return reads.load(); }

}  // namespace runner
