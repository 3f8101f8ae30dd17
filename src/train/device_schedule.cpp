#include "train/device_schedule.h"

#include <vector>

namespace runner {

void DeviceSchedule::refill(long long first, long long capacity, const torch::Device& device) {
  std::vector<double> rates;
  rates.reserve(static_cast<size_t>(capacity + 1));
  for (long long i = 0; i <= capacity; ++i) rates.push_back(host_lr(first + i));
  torch::Tensor host = torch::tensor(rates, torch::kFloat64);
  // Into the same memory when the size allows: a captured step (train/step_graphs.h)
  // reads the table and the count at the addresses it was captured with.
  if (table_.defined() && table_.device() == device && table_.numel() == host.numel()) {
    table_.copy_(host);
    applied_.zero_();
    return;
  }
  table_ = host.to(device);
  applied_ = torch::zeros({}, torch::TensorOptions().dtype(torch::kInt64).device(device));
}

torch::Tensor DeviceSchedule::lr() const { return table_.index_select(0, applied_.view({1})).squeeze(0); }

void DeviceSchedule::advance(const torch::Tensor& skip) {
  if (skip.defined()) applied_.add_(skip.logical_not());
  else applied_.add_(1);
}

}  // namespace runner
