// What this build, machine and environment offer, asked of LibTorch and the environment.
#include "cli/commands.h"
#include "run/mlflow_logger.h"
#include "util/cpu_info.h"
#include "util/torch_linked.h"

namespace runner {

bool links_torch() { return true; }

Capabilities detect_capabilities() {
  Capabilities caps;
  caps.cuda_build = torch::cuda::is_available() || at::hasCUDA();
  caps.cuda_available = torch::cuda::is_available();
  caps.native_bf16 = cpu_has_native_bf16();
  TrackingUriProblem mlflow = mlflow_tracking_uri_problem();
  caps.mlflow_problem = mlflow.what;
  caps.mlflow_fix = mlflow.fix;
  return caps;
}

}  // namespace runner
