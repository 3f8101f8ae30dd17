#include "train/logger.h"
#include "registry/builtins.h"
#include "registry/registry.h"
#include "run/tensorboard_logger.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <unistd.h>
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
    if (event.value("event", "") == "progress") return;  // per-step heartbeat, terminal only
    std::string line = event.dump() + "\n";
    std::fwrite(line.data(), 1, line.size(), file_);
    std::fflush(file_);
  }

 private:
  std::FILE* file_ = nullptr;
};

std::string plain_line(const nlohmann::json& event) {
  std::string line = event.value("event", std::string("event"));
  for (const auto& [key, value] : event.items()) {
    if (key == "event") continue;
    std::string v = value.is_string() ? value.get<std::string>()
                    : value.is_number_float() ? fmt::format("{:.6g}", value.get<double>())
                                              : value.dump();
    line += " " + key + "=" + v;
  }
  return line;
}

// Plain lines for a pipe or a log file: "train step=50 loss=0.6931 lr=2e-05 ...".
// The per-step "progress" heartbeat is dropped.
class LineLogger : public Logger {
 public:
  explicit LineLogger(std::FILE* out) : out_(out) {}
  void log(const nlohmann::json& event) override {
    if (event.value("event", "") == "progress") return;
    std::fprintf(out_, "%s\n", plain_line(event).c_str());
    std::fflush(out_);
  }

 private:
  std::FILE* out_;
};

// A live bar on a terminal, redrawn on every step's heartbeat:
// "[=====>    ] 120/2000 loss 0.6931 lr 2.0e-05 4.1 it/s ETA 07:38". Other events
// print as lines above it.
class ProgressBarLogger : public Logger {
 public:
  void log(const nlohmann::json& event) override {
    std::string kind = event.value("event", "");
    if (kind == "progress") return draw(event);
    if (kind == "train") {
      loss_ = event.value("loss", loss_);
      lr_ = event.value("lr", lr_);
    }
    std::fprintf(stderr, "\r\033[K%s\n", plain_line(event).c_str());
    if (kind == "start") started_ = Clock::now(), first_step_ = event.value("resumed_at_step", 0LL);
  }

 private:
  using Clock = std::chrono::steady_clock;

  void draw(const nlohmann::json& e) {
    long long step = e.value("step", 0LL), total = std::max(1LL, e.value("total_steps", 1LL));
    double secs = std::chrono::duration<double>(Clock::now() - started_).count();
    double rate = secs > 0 ? static_cast<double>(step - first_step_) / secs : 0.0;
    long long eta = rate > 0 ? static_cast<long long>((total - step) / rate) : 0;
    int width = 24, filled = static_cast<int>(width * step / total);
    std::string bar(static_cast<size_t>(filled), '=');
    bar += std::string(static_cast<size_t>(width - filled), ' ');
    std::fprintf(stderr, "\r\033[K[%s] %lld/%lld loss %.4f lr %.2e %.2f it/s ETA %02lld:%02lld",
                 bar.c_str(), step, total, loss_, lr_, rate, eta / 60, eta % 60);
    std::fflush(stderr);
  }

  Clock::time_point started_ = Clock::now();
  long long first_step_ = 0;
  double loss_ = 0.0, lr_ = 0.0;
};

// train.log in the run directory: plain lines, appended on resume.
class TextFileLogger : public Logger {
 public:
  explicit TextFileLogger(const LoggerContext& ctx) {
    std::string path = ctx.run_dir + "/train.log";
    file_ = std::fopen(path.c_str(), ctx.append ? "a" : "w");
    if (!file_) throw std::runtime_error("cannot open " + path + " for writing");
    line_ = std::make_unique<LineLogger>(file_);
  }
  ~TextFileLogger() override {
    if (file_) std::fclose(file_);
  }
  void log(const nlohmann::json& event) override { line_->log(event); }

 private:
  std::FILE* file_ = nullptr;
  std::unique_ptr<LineLogger> line_;
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
              ComponentSpec{Kind::Logger, "console",
                            "A live progress bar on a terminal, plain periodic lines on a pipe "
                            "(standard error)",
                            {}},
              LoggerFactory([](const nlohmann::json&, const LoggerContext&) {
                return isatty(fileno(stderr)) ? std::unique_ptr<Logger>(new ProgressBarLogger())
                                              : std::unique_ptr<Logger>(new LineLogger(stderr));
              }));
  add_builtin(r,
              ComponentSpec{Kind::Logger, "text", "Events as plain lines in <run dir>/train.log", {}},
              LoggerFactory([](const nlohmann::json&, const LoggerContext& ctx) {
                return std::unique_ptr<Logger>(new TextFileLogger(ctx));
              }));
  add_builtin(r,
              ComponentSpec{Kind::Logger, "tensorboard",
                            "Scalars (train/*, eval/*) as TensorBoard event files in "
                            "<run dir>/tensorboard/, for `tensorboard --logdir runs/`",
                            {}},
              LoggerFactory([](const nlohmann::json&, const LoggerContext& ctx) {
                return make_tensorboard_logger(ctx);
              }));
}

}  // namespace runner
