// Loggers receive every training event (log, eval, checkpoint, ...) as JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace runner {

class Logger {
 public:
  virtual ~Logger() = default;
  // event["event"] names it: "train", "eval", "checkpoint", "start", "end", ...
  virtual void log(const nlohmann::json& event) = 0;
};

// The run's loggers as one: every event goes to each, in order.
class EventLog {
 public:
  explicit EventLog(std::vector<Logger*> loggers) : loggers_(std::move(loggers)) {}
  void emit(const nlohmann::json& event) const {
    for (Logger* l : loggers_) l->log(event);
  }

 private:
  std::vector<Logger*> loggers_;
};

struct LoggerContext {
  std::string run_dir;   // the run directory; loggers writing files put them here
  bool append = false;   // resuming: continue existing files
  std::string run_name;  // run.name, resolved
};

// Fields of train and eval events that are positions or counts, not measurements:
// every other number of such an event is a scalar (TensorBoard, MLflow).
inline bool is_event_bookkeeping(const std::string& key) {
  return key == "event" || key == "step" || key == "total_steps" || key == "epoch" || key == "examples" ||
         key == "effective_batch" || key == "is_best" || key == "wall_time" || key == "elapsed_s";
}

using LoggerFactory =
    std::function<std::unique_ptr<Logger>(const nlohmann::json& options, const LoggerContext&)>;

}  // namespace runner
