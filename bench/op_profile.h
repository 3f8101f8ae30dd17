// The largest ops of a piece of work by self CPU time, from LibTorch's
// autograd profiler (the legacy one: this LibTorch has no Kineto).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace bench {

struct OpTime {
  std::string name;
  double self_ms = 0;  // summed over the calls, children excluded
  long long calls = 0;
};

// Runs `work` under the profiler; every op of the calling thread (backward
// included, which runs there on CPU), largest self time first.
std::vector<OpTime> profile_ops(const std::function<void()>& work);

}  // namespace bench
