// Metrics by command: a user's program, in any language, that scores an
// evaluation. The runner writes the split's predictions as JSONL (one object
// per example: id, label, prediction, logits), runs the program with that
// file's path as its last argument and a time limit, and reads one JSON object
// of named numbers from its standard output; they join the built-in metrics.
#pragma once

#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace runner {

struct MetricCommand {
  std::vector<std::string> argv;  // train.metric_command; empty = none
  double timeout_s = 120;         // train.metric_command_timeout_s
};

// A metric program that failed, hung or answered what is not named numbers.
class MetricCommandError : public InputError {
 public:
  using InputError::InputError;
};

// Writes `records` to `predictions_path`, runs the command on it and returns
// its {name: number}. A name already in `built_in` (a built-in metric, "loss")
// is refused, as are non-finite numbers, non-numbers and names that are not
// [A-Za-z0-9_]+. `stop_requested` ends the program early (a signal to the run).
nlohmann::json run_metric_command(const MetricCommand& command, const std::vector<nlohmann::json>& records,
                                  const std::string& predictions_path, const nlohmann::json& built_in,
                                  const std::function<bool()>& stop_requested = {});

}  // namespace runner
