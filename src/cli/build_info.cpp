// What this build, machine and environment offer, asked of LibTorch and the environment.
#include "cli/commands.h"
#include "util/torch_linked.h"

namespace runner {

bool links_torch() { return true; }

Capabilities detect_capabilities() {
  Capabilities caps = host_capabilities();
  caps.cuda_build = torch::cuda::is_available() || at::hasCUDA();
  caps.cuda_available = torch::cuda::is_available();
  return caps;
}

}  // namespace runner
