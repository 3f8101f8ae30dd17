// What of a run the mlflow logger sends: the numbers of its events as MLflow
// metrics and its resolved recipe as MLflow params.
#pragma once

#include "run/mlflow_client.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner {

long long now_ms();  // the wall clock, as MLflow's timestamps count it

// The numbers of a train or eval event, named as the TensorBoard scalars are
// ("train/loss", "eval/f1"), at the event's step and time; none for other events.
std::vector<mlflow::Metric> event_metrics(const nlohmann::json& event);

// recipe.resolved.json of the run as params, "section.key" = value (cut to
// the length every server accepts); none when it cannot be read.
std::vector<mlflow::KeyValue> recipe_params(const std::string& run_dir);

}  // namespace runner
