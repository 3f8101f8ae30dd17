// What this build, machine and environment offer, without LibTorch: the front
// runner validates with these, and must judge a recipe as the full runner does
// (tests/cli/test_front.cpp compares them with detect_capabilities()).
#include "cli/commands.h"

#include "run/mlflow_logger.h"
#include "util/cpu_info.h"
#include "util/cuda_driver.h"

#include "runner_build_config.h"

namespace runner {

Capabilities host_capabilities() {
  Capabilities caps;
  caps.native_bf16 = cpu_has_native_bf16();
  TrackingUriProblem mlflow = mlflow_tracking_uri_problem();
  caps.mlflow_problem = mlflow.what;
  caps.mlflow_fix = mlflow.fix;
  return caps;
}

Capabilities capabilities_without_torch() {
  Capabilities caps = host_capabilities();
  // A CPU LibTorch never sees a GPU, so only a CUDA build asks the driver. LibTorch
  // counts the devices the driver shows (CUDA_VISIBLE_DEVICES applies to both),
  // except under a driver older than its CUDA runtime, where it sees none: there
  // validate passes run.device = "cuda", and the run itself (the full runner) refuses it.
  caps.cuda_build = RUNNER_TORCH_CUDA;
  caps.cuda_available = caps.cuda_build && cuda_driver_device_count() > 0;
  return caps;
}

}  // namespace runner
