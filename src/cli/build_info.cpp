// What this build and machine offer, asked of LibTorch.
#include "cli/commands.h"
#include "util/cpu_info.h"

namespace runner {

Capabilities detect_capabilities() {
  Capabilities caps;
  caps.cuda_build = torch::cuda::is_available() || at::hasCUDA();
  caps.cuda_available = torch::cuda::is_available();
  caps.native_bf16 = cpu_has_native_bf16();
  return caps;
}

}  // namespace runner
