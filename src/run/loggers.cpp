#include "train/logger.h"
#include "registry/builtins.h"
#include "registry/registry.h"
#include "run/console_lines.h"
#include "run/mlflow_logger.h"
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
    // A message may quote bytes that are not UTF-8 (a damaged file's names): written
    // as U+FFFD, where a strict dump would throw and end the run.
    std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::fwrite(line.data(), 1, line.size(), file_);
    std::fflush(file_);
  }

 private:
  std::FILE* file_ = nullptr;
};

// Plain lines for a pipe or a log file (run/console_lines.h):
// "2026-11-25T15:40:01Z +12.3s train step=50/115 epoch=0 loss=0.6931 ...".
// The per-step "progress" heartbeat is dropped.
class LineLogger : public Logger {
 public:
  explicit LineLogger(std::FILE* out) : out_(out) {}
  void log(const nlohmann::json& event) override {
    if (event.value("event", "") == "progress") return;
    std::fprintf(out_, "%s\n", event_line(event).c_str());
    std::fflush(out_);
  }

 private:
  std::FILE* out_;
};

// A live bar on a terminal, redrawn in place on every step's heartbeat and when an
// evaluation starts: "[=====>    ] 120/2000 epoch 0.18/3 loss 0.6931 lr 2e-05 4.10 it/s ETA 07:38".
// Other events print as lines above it.
class ProgressBarLogger : public Logger {
 public:
  void log(const nlohmann::json& event) override {
    std::string kind = event.value("event", "");
    if (kind == "progress") return draw(event);
    if (kind == "train" && event.contains("loss")) {
      bar_.has_loss = true;
      bar_.loss = event.value("loss", bar_.loss);
    }
    if (kind == "train") bar_.lr = event.value("lr", bar_.lr);
    std::fprintf(stderr, "\r\033[K%s\n", event_line(event).c_str());
    if (kind == "start") started_ = Clock::now(), first_step_ = event.value("resumed_at_step", 0LL);
  }

 private:
  using Clock = std::chrono::steady_clock;

  void draw(const nlohmann::json& e) {
    bar_.step = e.value("step", 0LL);
    bar_.total_steps = e.value("total_steps", bar_.total_steps);
    bar_.steps_per_epoch = e.value("steps_per_epoch", bar_.steps_per_epoch);
    bar_.evaluating = e.value("phase", "") == "eval";
    bar_.eval_batches = e.value("eval_batches", 0LL);
    double secs = std::chrono::duration<double>(Clock::now() - started_).count();
    bar_.steps_per_s = secs > 0 ? static_cast<double>(bar_.step - first_step_) / secs : 0.0;
    // Read at every step, so that a resized terminal gets a bar of its new width.
    std::fprintf(stderr, "\r\033[K%s", bar_text(bar_, terminal_columns(fileno(stderr))).c_str());
    std::fflush(stderr);
  }

  Clock::time_point started_ = Clock::now();
  long long first_step_ = 0;
  BarState bar_;
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
  add_builtin(r,
              ComponentSpec{Kind::Logger, "mlflow",
                            "The run on an MLflow tracking server ($MLFLOW_TRACKING_URI, experiment "
                            "$MLFLOW_EXPERIMENT_NAME or run.name): params, metrics, status, final model; "
                            "sent in the background, never holding training up",
                            {}},
              LoggerFactory([](const nlohmann::json&, const LoggerContext& ctx) {
                return make_mlflow_logger(ctx);
              }));
}

}  // namespace runner
