// What this build and machine offer, asked of LibTorch.
#include "cli/commands.h"


#include <fstream>
#include <string>

namespace runner {

static bool cpu_has_native_bf16() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("flags", 0) == 0)
      return line.find("avx512_bf16") != std::string::npos || line.find("amx_bf16") != std::string::npos;
  return false;
}

Capabilities detect_capabilities() {
  Capabilities caps;
  caps.cuda_build = torch::cuda::is_available() || at::hasCUDA();
  caps.cuda_available = torch::cuda::is_available();
  caps.native_bf16 = cpu_has_native_bf16();
  return caps;
}

}  // namespace runner
