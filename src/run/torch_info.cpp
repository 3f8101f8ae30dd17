#include "run/run_dir.h"

#include <torch/cuda.h>

namespace runner {

std::string gpu_model() {
  if (!torch::cuda::is_available()) return "none";
  return std::to_string(torch::cuda::device_count()) + " CUDA device(s)";
}

}  // namespace runner
