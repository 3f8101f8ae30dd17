// What of a run the mlflow logger sends: the numbers of its events as MLflow
// metrics, its resolved recipe as MLflow params, and its status in MLflow's words.
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

// summary.json's status as MLflow names it: FINISHED, KILLED (interrupted) or FAILED.
std::string mlflow_status(const std::string& run_status);

}  // namespace runner
