// The `mlflow` logger: the run as an MLflow run on a tracking server, over its
// REST API (run/mlflow_client.h). The server is $MLFLOW_TRACKING_URI (an
// http:// or https:// URI), the experiment $MLFLOW_EXPERIMENT_NAME or else
// run.name, as MLflow's own clients and Transformers' MLflowCallback read them.
//
// Training never waits for the server: log() only queues the event's numbers
// and a background thread sends them in batches every second. A server that
// cannot be reached is said once on standard error, retried with a growing
// pause, and whatever it never took stays in metrics.jsonl. At the end the
// run's status is set and the final model folder is uploaded when the server
// proxies artifacts. A resumed run continues the same MLflow run (mlflow.json
// in the run directory remembers it).
#pragma once

#include "train/logger.h"

#include <memory>
#include <string>

namespace runner {

std::unique_ptr<Logger> make_mlflow_logger(const LoggerContext& ctx);

// Why $MLFLOW_TRACKING_URI cannot serve the mlflow logger, and the fix; `what`
// is empty when it can. Checked before a run directory exists.
struct TrackingUriProblem {
  std::string what, fix;
};
TrackingUriProblem mlflow_tracking_uri_problem();

}  // namespace runner
