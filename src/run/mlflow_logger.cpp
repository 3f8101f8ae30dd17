#include "run/mlflow_logger.h"

#include "run/mlflow_client.h"
#include "run/mlflow_payload.h"
#include "train/interrupt.h"
#include "util/json_input.h"
#include "util/process_info.h"
#include "util/redacted_uri.h"
#include "util/utf8.h"
#include "runner_build_config.h"
#include "util/built_commit.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

namespace runner {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kSendEvery = std::chrono::seconds(1);
constexpr auto kLongestPause = std::chrono::seconds(30);
// About 20 MB of queued numbers: hours of logging at every step while a server is down.
constexpr size_t kMaxQueued = 200000;
// After training, the last delivery, the status and the upload get this long
// together, plus each final-model file's upload_allowance: a slow or stuck
// server delays the end of the process by no more.
constexpr auto kFinishBudget = std::chrono::seconds(15);

// The variable's value; `fallback` when it is unset or empty.
std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// No answer, a server error or "too many requests" may pass; another 4xx will not.
bool worth_retrying(const mlflow::Answer& a) {
  return !a.reached || a.status >= 500 || a.status == 429;
}

class MlflowLogger : public Logger {
 public:
  explicit MlflowLogger(const LoggerContext& ctx)
      : client_(env_or("MLFLOW_TRACKING_URI", "")), ctx_(ctx), state_file_(ctx.run_dir + "/mlflow.json") {
    if (ctx.append) read_state();
    if (run_id_.empty()) params_ = recipe_params(ctx.run_dir);
    client_.abandon_when([this] { return past_finish(); });
    worker_ = std::thread([this] { work(); });
  }

  ~MlflowLogger() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    if (!end_seen_) signal_at_end_ = pending_interrupt();
    finish_by_ = (Clock::now() + kFinishBudget).time_since_epoch().count();
    wake_.notify_all();
    worker_.join();
  }

  void log(const nlohmann::json& event) override {
    std::vector<mlflow::Metric> metrics = event_metrics(event);
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& m : metrics) queued_.push_back(std::move(m));
    while (queued_.size() > kMaxQueued) queued_.pop_front(), ++dropped_;
    if (event.value("event", "") == "end") {
      end_status_ = record_string(event, "status", "failed");
      signal_at_end_ = pending_interrupt();
      end_seen_ = true;
    }
  }

 private:
  // A logger's trouble never ends the run: whatever goes wrong in the worker
  // (a file of the final model that vanished, memory) is said and ends only it.
  void work() {
    try {
      send_until_stopped();
    } catch (const std::exception& e) {
      say(fmt::format("stopped sending to {}: {}; metrics.jsonl has every metric", client_.shown_uri(),
                      terminal_safe(e.what())));
    }
  }

  // True once the end's budget is spent, or a SIGINT/SIGTERM came after training
  // ended: the request in flight is abandoned so that the process can exit.
  bool past_finish() const {
    if (Clock::now().time_since_epoch().count() > finish_by_.load()) return true;
    int signal = pending_interrupt();
    return finish_by_.load() != kNoDeadline && signal != 0 && signal != signal_at_end_.load();
  }

  void send_until_stopped() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      wake_.wait_for(lock, kSendEvery, [this] { return stopping_; });
      if (stopping_ || Clock::now() < retry_at_) continue;
      lock.unlock();
      deliver();
      lock.lock();
    }
    lock.unlock();
    finish();
  }

  // The last try, after the run's end: what is queued, the status, the model.
  void finish() {
    if (gave_up_) return;  // said when it gave up, with where the metrics are
    if (!deliver()) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!queued_.empty() || dropped_ > 0)
        say(fmt::format("{} metric values were not sent to {}; metrics.jsonl has them all",
                        queued_.size() + dropped_, client_.shown_uri()));
      say_refused();
      return;
    }
    say_refused();
    std::string end_status;
    {
      std::lock_guard<std::mutex> lock(mu_);
      end_status = end_status_;
    }
    if (!end_status.empty()) client_.update_run(run_id_, mlflow_status(end_status), now_ms());
    if (end_status == "completed") upload_final_model();
  }

  // Everything queued, in batches; false when the server could not be reached.
  bool deliver() {
    if (gave_up_ || !ensure_run()) return false;
    for (;;) {
      std::vector<mlflow::Metric> batch = next_batch();
      const size_t taken = batch.size();
      std::vector<mlflow::KeyValue> params = next_params();
      if (taken == 0 && params.empty()) return true;
      drop_held_steps(batch);
      mlflow::Answer a = batch.empty() && params.empty() ? mlflow::Answer{true, true, 0, {}, {}}
                                                         : client_.log_batch(run_id_, batch, params, {});
      if (worth_retrying(a)) return unreachable(a);
      if (!a.ok) {
        refused_ += batch.size() + params.size();
        say_once(rejected_said_, fmt::format("the tracking server at {} refused {} values: {}",
                                             client_.shown_uri(), batch.size() + params.size(), a.problem));
      }
      params_sent_ += params.size();
      std::lock_guard<std::mutex> lock(mu_);
      queued_.erase(queued_.begin(), queued_.begin() + static_cast<long>(taken));
      pause_ = std::chrono::seconds(0);
    }
  }

  // A session killed with kill -9 sent steps past its last checkpoint; the resumed
  // session trains them again, and metrics.jsonl keeps only the new events. MLflow
  // keeps every point it was sent, so a step it holds is not sent a second time.
  void drop_held_steps(std::vector<mlflow::Metric>& batch) const {
    if (held_steps_.empty()) return;
    batch.erase(std::remove_if(batch.begin(), batch.end(),
                               [this](const mlflow::Metric& m) {
                                 auto held = held_steps_.find(m.key);
                                 return held != held_steps_.end() && m.step <= held->second;
                               }),
                batch.end());
  }

  std::vector<mlflow::Metric> next_batch() {
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = std::min(queued_.size(), mlflow::kMaxMetricsPerBatch);
    return {queued_.begin(), queued_.begin() + static_cast<long>(n)};
  }

  std::vector<mlflow::KeyValue> next_params() const {
    size_t n = std::min(params_.size() - params_sent_, mlflow::kMaxParamsPerBatch);
    return {params_.begin() + static_cast<long>(params_sent_),
            params_.begin() + static_cast<long>(params_sent_ + n)};
  }

  // The MLflow run: created on the first delivery, or the one a resumed run had.
  bool ensure_run() {
    if (!run_id_.empty() && !resumed_) return true;
    if (resumed_) {
      mlflow::Answer a = client_.update_run(run_id_, "RUNNING", 0);
      if (!worth_retrying(a)) a = client_.latest_steps(run_id_, held_steps_);
      if (worth_retrying(a)) return unreachable(a);
      resumed_ = false;
      return true;
    }
    std::string experiment_name = env_or("MLFLOW_EXPERIMENT_NAME", ctx_.run_name);
    mlflow::Answer a = client_.experiment_id(experiment_name, experiment_id_);
    if (a.ok)
      a = client_.create_run(experiment_id_, fs::path(ctx_.run_dir).filename().string(), now_ms(), run_tags(),
                             run_id_, artifact_uri_);
    if (worth_retrying(a)) return unreachable(a);
    if (!a.ok) {
      gave_up_ = true;
      say(fmt::format("the tracking server at {} refused to create the run ({}); this run is not tracked "
                      "there, metrics.jsonl has every metric",
                      client_.shown_uri(), a.problem));
      return false;
    }
    write_state();
    return true;
  }

  std::vector<mlflow::KeyValue> run_tags() const {
    return {{"mlflow.source.name", "runner"}, {"mlflow.source.type", "LOCAL"},
            {"mlflow.source.git.commit", built_commit()}, {"runner.version", RUNNER_VERSION},
            {"runner.run_dir", ctx_.run_dir}, {"runner.run_name", ctx_.run_name}, {"runner.host", host_name()}};
  }

  bool unreachable(const mlflow::Answer& a) {
    say_once(unreachable_said_,
             fmt::format("the MLflow tracking server at {} cannot be reached ({}); training goes on, every "
                         "metric stays in metrics.jsonl and is sent when the server answers",
                         client_.shown_uri(), a.problem));
    pause_ = std::min<std::chrono::seconds>(kLongestPause, pause_ * 2 + std::chrono::seconds(1));
    std::lock_guard<std::mutex> lock(mu_);
    retry_at_ = Clock::now() + pause_;
    return false;
  }

  void say_refused() const {
    if (refused_ > 0)
      say(fmt::format("the tracking server at {} refused {} values in all; metrics.jsonl has them all",
                      client_.shown_uri(), refused_));
  }

  void upload_final_model() {
    fs::path final_dir = fs::path(ctx_.run_dir) / "final";
    if (!fs::is_directory(final_dir)) return;
    if (!mlflow::proxied_artifacts(artifact_uri_)) {
      const std::string where = artifact_uri_.empty() ? "a place its answer did not name (no artifact_uri string)"
                                                       : redacted_uri(artifact_uri_);
      say(fmt::format("the tracking server stores artifacts at {}, which it does not serve as a plain path "
                      "under its artifact root (start it with --serve-artifacts); the final model stays in {}",
                      where, terminal_safe(final_dir.string())));
      return;
    }
    for (const auto& entry : fs::recursive_directory_iterator(final_dir)) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream bytes;
      bytes << in.rdbuf();
      std::string relative = "final/" + fs::relative(entry.path(), final_dir).generic_string();
      // A file's upload adds its own time at the slowest rate still worth waiting for.
      finish_by_ += std::chrono::duration_cast<Clock::duration>(mlflow::upload_allowance(bytes.str().size())).count();
      mlflow::Answer a = client_.upload_artifact(artifact_uri_, relative, bytes.str());
      if (!a.ok) {
        say(fmt::format("uploading {} to {} failed ({}); the final model stays in {}", relative,
                        client_.shown_uri(), a.problem, final_dir.string()));
        return;
      }
    }
  }

  void read_state() {
    std::ifstream in(state_file_);
    std::stringstream text;
    text << in.rdbuf();
    std::string why;
    nlohmann::json s = try_parse_json(text.str(), why).value_or(nullptr);
    if (record_string(s, "tracking_uri") != client_.shown_uri()) return;  // a hand-edited file reads as absent
    run_id_ = record_string(s, "run_id");
    experiment_id_ = record_string(s, "experiment_id");
    artifact_uri_ = record_string(s, "artifact_uri");
    resumed_ = !run_id_.empty();
  }

  // The URI is recorded as shown (no password, no query): a resume compares it
  // with its own, shown the same way.
  void write_state() {
    std::ofstream out(state_file_);
    out << nlohmann::json{{"tracking_uri", client_.shown_uri()}, {"experiment_id", experiment_id_},
                          {"run_id", run_id_}, {"artifact_uri", artifact_uri_}}
               .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
        << "\n";
    out.flush();
    if (!out)
      say(fmt::format("{} could not be written (disk full?); a resume of this run starts a new MLflow run",
                      terminal_safe(state_file_)));
  }

  static void say(const std::string& message) { std::fprintf(stderr, "warning: mlflow: %s\n", message.c_str()); }

  static void say_once(bool& said, const std::string& message) {
    if (!said) say(message);
    said = true;
  }

  mlflow::Client client_;
  LoggerContext ctx_;
  std::string state_file_;
  std::string experiment_id_, run_id_, artifact_uri_;
  bool resumed_ = false, gave_up_ = false, unreachable_said_ = false, rejected_said_ = false;
  size_t refused_ = 0;
  static constexpr Clock::rep kNoDeadline = std::numeric_limits<Clock::rep>::max();
  std::atomic<Clock::rep> finish_by_{kNoDeadline};
  std::atomic<int> signal_at_end_{0};
  std::vector<mlflow::KeyValue> params_;
  size_t params_sent_ = 0;
  std::map<std::string, long long> held_steps_;  // a resumed run's: metric -> the highest step the server has
  std::chrono::seconds pause_{0};

  std::mutex mu_;  // guards what log() and the worker share: the queue, the end, the schedule
  std::condition_variable wake_;
  std::deque<mlflow::Metric> queued_;
  size_t dropped_ = 0;
  std::string end_status_;
  bool end_seen_ = false;
  bool stopping_ = false;
  Clock::time_point retry_at_{};
  std::thread worker_;
};

}  // namespace

std::unique_ptr<Logger> make_mlflow_logger(const LoggerContext& ctx) {
  return std::make_unique<MlflowLogger>(ctx);
}

TrackingUriProblem mlflow_tracking_uri_problem() {
  std::string uri = env_or("MLFLOW_TRACKING_URI", "");
  if (uri.empty())
    return {"MLFLOW_TRACKING_URI is not set, so there is no tracking server to send to",
            "start one (`mlflow server --host 127.0.0.1 --port 5000`) and set "
            "MLFLOW_TRACKING_URI=http://127.0.0.1:5000, or leave \"mlflow\" out of run.loggers"};
  if (uri.rfind("http://", 0) != 0 && uri.rfind("https://", 0) != 0)
    return {"MLFLOW_TRACKING_URI is \"" + redacted_uri(uri) + "\", but the mlflow logger talks to a tracking server over HTTP",
            "start `mlflow server` and set MLFLOW_TRACKING_URI=http://HOST:PORT"};
  return {};
}

}  // namespace runner
