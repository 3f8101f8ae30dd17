#include "run/logger.h"
#include "registry/builtins.h"
#include "registry/registry.h"

#include <fmt/format.h>

#include <cstdio>
#include <stdexcept>

namespace runner {
namespace {

// One JSON object per line, flushed as written, so a killed run keeps every event.
class JsonlLogger : public Logger {
 public:
  explicit JsonlLogger(const LoggerContext& ctx) {
    std::string path = ctx.run_dir + "/metrics.jsonl";
    file_ = std::fopen(path.c_str(), ctx.append ? "a" : "w");
    if (!file_) throw std::runtime_error("cannot open " + path + " for writing");
  }
  ~JsonlLogger() override {
    if (file_) std::fclose(file_);
  }
  void log(const nlohmann::json& event) override {
    std::string line = event.dump() + "\n";
    std::fwrite(line.data(), 1, line.size(), file_);
    std::fflush(file_);
  }

 private:
  std::FILE* file_ = nullptr;
};

// Plain lines for a pipe or a log file: "step 50/1000 loss 0.6931 lr 2e-05 ...".
class ConsoleLogger : public Logger {
 public:
  void log(const nlohmann::json& event) override {
    std::string line = event.value("event", std::string("event"));
    for (const auto& [key, value] : event.items()) {
      if (key == "event") continue;
      line += " " + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
    }
    std::fprintf(stderr, "%s\n", line.c_str());
  }
};

}  // namespace

void register_loggers(Registry& r) {
  add_builtin(r,
              ComponentSpec{Kind::Logger, "jsonl",
                            "Every event as one JSON line in <run dir>/metrics.jsonl", {}},
              LoggerFactory([](const nlohmann::json&, const LoggerContext& ctx) {
                return std::unique_ptr<Logger>(new JsonlLogger(ctx));
              }));
  add_builtin(r,
              ComponentSpec{Kind::Logger, "console", "Events as plain lines on standard error", {}},
              LoggerFactory([](const nlohmann::json&, const LoggerContext&) {
                return std::unique_ptr<Logger>(new ConsoleLogger());
              }));
}

}  // namespace runner
