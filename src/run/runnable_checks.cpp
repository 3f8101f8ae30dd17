#include "run/runnable_checks.h"

#include "run/mlflow_logger.h"
#include "run/summary_writer.h"
#include "util/diagnostic.h"

#include <torch/torch.h>

#include <algorithm>

namespace runner {
namespace {

// A device that the build or this machine cannot give is refused before a
// run directory exists: LibTorch would fail at the first tensor moved there,
// after the directory was made, with a C++ backtrace for a message.
void require_device(const Recipe& recipe, const SessionSettings& settings) {
  const RunSettings& run = settings.run;
  if (torch::cuda::is_available()) return;
  const bool fp16 = settings.train.precision == Precision::Fp16;
  // run.device = "auto" falls back to the CPU, where fp16 cannot train.
  if (run.device == DeviceChoice::Auto && fp16)
    throw InputError(make_error(recipe.location_of("train.precision"), "train.precision",
                                "train.precision = \"fp16\" needs a CUDA device, and this machine has none "
                                "(run.device = \"auto\" trains on the CPU here); nothing was run",
                                "train it on a GPU machine, or set train.precision = \"fp32\" (or \"bf16\" on a "
                                "CPU with native bf16) to train here"));
  if (run.device != DeviceChoice::Cuda) return;
  const std::string why = at::hasCUDA() ? "no CUDA device is visible on this machine"
                                        : "this runner is built without CUDA (CPU-only LibTorch)";
  std::string fix = "set run.device = \"auto\" (a GPU when there is one, else the CPU) or \"cpu\"";
  if (fp16) fix += ", and train.precision = \"bf16\" (or \"fp32\") instead of \"fp16\", which needs CUDA";
  throw InputError(make_error(recipe.location_of("run.device"), "run.device",
                              "run.device = \"cuda\", but " + why + "; nothing was run", fix));
}

// The mlflow logger without a tracking server would only say so after the run
// directory exists; refused here like a missing device.
void require_tracking_server(const Recipe& recipe, const RunSettings& run) {
  if (std::find(run.loggers.begin(), run.loggers.end(), "mlflow") == run.loggers.end()) return;
  TrackingUriProblem problem = mlflow_tracking_uri_problem();
  if (problem.what.empty()) return;
  throw InputError(make_error(recipe.location_of("run.loggers"), "run.loggers",
                              "run.loggers has \"mlflow\", but " + problem.what + "; nothing was run",
                              problem.fix));
}

}  // namespace

void require_runnable(const Recipe& recipe, const SessionSettings& settings) {
  require_device(recipe, settings);
  require_tracking_server(recipe, settings.run);
  heartbeat_seconds();  // an out-of-range RUNNER_HEARTBEAT_SECONDS is refused by name
}

}  // namespace runner
