// Every read of a tensor's value back to the host goes through here. On a GPU
// each one waits until the card has finished everything enqueued before it, so
// the training step must not read between log steps; counting them on the CPU,
// where a read costs nothing, is how a test holds the step to that
// (tests/train/test_host_reads.cpp, which also checks that nothing reads around
// these functions).
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace runner {

double read_double(const torch::Tensor& scalar);
int64_t read_int(const torch::Tensor& scalar);
bool read_bool(const torch::Tensor& scalar);
// Several scalars for the price of one read: stacked on their device as float64.
std::vector<double> read_doubles(const std::vector<torch::Tensor>& scalars);
// A whole tensor, contiguous on the CPU (one read).
torch::Tensor read_to_host(const torch::Tensor& t);

// Reads made by this process so far.
long long host_read_count();

}  // namespace runner
