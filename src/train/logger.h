// Loggers receive every training event (log, eval, checkpoint, ...) as JSON.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>

namespace runner {

class Logger {
 public:
  virtual ~Logger() = default;
  // event["event"] names it: "train", "eval", "checkpoint", "start", "end", ...
  virtual void log(const nlohmann::json& event) = 0;
};

struct LoggerContext {
  std::string run_dir;   // the run directory; loggers writing files put them here
  bool append = false;   // resuming: continue existing files
};

using LoggerFactory =
    std::function<std::unique_ptr<Logger>(const nlohmann::json& options, const LoggerContext&)>;

}  // namespace runner
