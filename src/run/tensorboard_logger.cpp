#include "run/tensorboard_logger.h"

#include "tensorboard_event.pb.h"
#include "util/crc32c.h"
#include "util/process_info.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace runner {
namespace fs = std::filesystem;

namespace {

void put_le(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The event's own time (the run's loggers stamp each event once), so that a
// scalar's wall_time equals the wall_time of its line in metrics.jsonl.
double event_wall_time(const nlohmann::json& event) {
  auto it = event.find("wall_time");
  return it != event.end() && it->is_number() ? it->get<double>() : now_seconds();
}

class TensorBoardLogger : public Logger {
 public:
  explicit TensorBoardLogger(const LoggerContext& ctx) : append_(ctx.append) {
    fs::path dir = fs::path(ctx.run_dir) / "tensorboard";
    std::error_code ec;
    fs::create_directories(dir, ec);
    // A new file per session: TensorBoard reads every events file of the folder in order.
    std::string path = (dir / ("events.out.tfevents." +
                               std::to_string(static_cast<long long>(now_seconds())) + "." + host_name())).string();
    if (fs::exists(path)) path += ".1";
    file_ = std::fopen(path.c_str(), "wb");
    if (!file_) throw std::runtime_error("cannot open " + path + " for writing");
    tensorboard::Event first;
    first.set_wall_time(now_seconds());
    first.set_file_version("brain.Event:2");
    write(first);
  }
  ~TensorBoardLogger() override {
    if (file_) std::fclose(file_);
  }
  TensorBoardLogger(const TensorBoardLogger&) = delete;
  TensorBoardLogger& operator=(const TensorBoardLogger&) = delete;

  void log(const nlohmann::json& event) override {
    std::string kind = event.value("event", "");
    // TensorBoard drops every scalar at or after a restart's step; the resumed
    // session rewrites steps after its checkpoint's, not that step's own evaluation.
    if (kind == "start" && append_) return restart_at(event.value("resumed_at_step", 0LL) + 1, event_wall_time(event));
    if (kind == "train" || kind == "eval") scalars(kind, event);
  }

 private:
  void restart_at(long long step, double wall_time) {
    tensorboard::Event e;
    e.set_wall_time(wall_time);
    e.set_step(step);
    e.mutable_session_log()->set_status(tensorboard::SessionLog::START);
    write(e);
  }

  void scalars(const std::string& kind, const nlohmann::json& event) {
    tensorboard::Event e;
    e.set_wall_time(event_wall_time(event));
    e.set_step(event.value("step", 0LL));
    for (const auto& [key, value] : event.items()) {
      if (is_event_bookkeeping(key) || !value.is_number()) continue;
      tensorboard::SummaryValue* v = e.mutable_summary()->add_value();
      v->set_tag(kind + "/" + key);
      v->set_simple_value(value.get<float>());
    }
    if (e.summary().value_size() > 0) write(e);
  }

  // Flushed per record, as metrics.jsonl is, so a killed run keeps what it logged.
  void write(const tensorboard::Event& e) {
    std::string record = tfrecord(e.SerializeAsString());
    std::fwrite(record.data(), 1, record.size(), file_);
    std::fflush(file_);
  }

  std::FILE* file_ = nullptr;
  bool append_ = false;
};

}  // namespace

std::string tfrecord(const std::string& data) {
  std::string header;
  put_le(header, data.size(), 8);
  std::string out = header;
  put_le(out, digest::masked_crc32c(header), 4);
  out += data;
  put_le(out, digest::masked_crc32c(data), 4);
  return out;
}

std::unique_ptr<Logger> make_tensorboard_logger(const LoggerContext& ctx) {
  return std::make_unique<TensorBoardLogger>(ctx);
}

}  // namespace runner
