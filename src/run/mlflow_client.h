// The few calls of MLflow's tracking REST API (/api/2.0/mlflow/...) that the
// mlflow logger makes. Every call returns what happened instead of throwing:
// the logger decides whether to retry, and training never waits for it.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace runner::mlflow {

struct Answer {
  bool ok = false;
  bool reached = false;  // an HTTP answer came (false: refused, timed out, dropped)
  long status = 0;
  std::string problem;   // why it failed, in words, for the one message a user sees
  nlohmann::json body;   // the answer's JSON; null when it was not JSON
};

struct Metric {
  std::string key;
  double value = 0;
  long long timestamp_ms = 0;
  long long step = 0;
};

struct KeyValue {
  std::string key;
  std::string value;
};

// MLflow's limits on one log-batch request (its REST API reference).
constexpr size_t kMaxMetricsPerBatch = 1000;
constexpr size_t kMaxParamsPerBatch = 100;
constexpr size_t kMaxParamValueChars = 500;  // the smallest any server version accepts
// The longest answer read: the tracking API's answers are a few KB, so a longer
// one is not a tracking server's and is cut off as it arrives.
constexpr size_t kMaxAnswerBytes = 16u << 20;
// An upload is given, beyond a request's own limit, one second per MiB: the
// slowest transfer still worth waiting for (a 440 MB model in about 7 minutes).
inline std::chrono::seconds upload_allowance(size_t bytes) { return std::chrono::seconds(bytes >> 20); }

class Client {
 public:
  // tracking_uri: "http://host:port" (a trailing slash is dropped). timeout_s
  // bounds connecting and each silence; a whole request gets 4 times that.
  explicit Client(std::string tracking_uri, long timeout_s = 5);

  // The URI as it may be shown or recorded: no password, no query.
  const std::string& shown_uri() const { return shown_uri_; }
  // Asked about once a second during each request: true abandons it.
  void abandon_when(std::function<bool()> give_up) { give_up_ = std::move(give_up); }

  // The id of the experiment with this name, created when there is none.
  Answer experiment_id(const std::string& name, std::string& id) const;
  Answer create_run(const std::string& experiment_id, const std::string& run_name, long long start_ms,
                    const std::vector<KeyValue>& tags, std::string& run_id, std::string& artifact_uri) const;
  Answer log_batch(const std::string& run_id, const std::vector<Metric>& metrics,
                   const std::vector<KeyValue>& params, const std::vector<KeyValue>& tags) const;
  // The highest step the server holds of each of the run's metrics (runs/get:
  // a metric's latest value is the one of its highest step). A resumed run
  // sends only the steps past these, so that a step is never held twice.
  Answer latest_steps(const std::string& run_id, std::map<std::string, long long>& steps) const;
  // status: RUNNING, FINISHED, FAILED or KILLED.
  Answer update_run(const std::string& run_id, const std::string& status, long long end_ms) const;
  // One file under the run's artifact root, through the server's artifact proxy
  // (artifact_uri "mlflow-artifacts:/..."): PUT /api/2.0/mlflow-artifacts/artifacts/...
  Answer upload_artifact(const std::string& artifact_uri, const std::string& relative_path,
                         const std::string& bytes) const;

 private:
  Answer call(const std::string& method, const std::string& path, const std::string& body,
              bool json_answer = true) const;

  std::string uri_, shown_uri_;
  long timeout_s_;
  std::function<bool()> give_up_;
};

// True for the artifact roots upload_artifact can write: the server proxies
// them, and their path has no "." or ".." segment that could leave the root.
bool proxied_artifacts(const std::string& artifact_uri);

// What an HTTP answer that came whole says: ok for a 2xx (with a JSON body
// when `json_answer`), else the problem in words (a redirect names its
// `location`). Never throws, whatever the bytes.
Answer read_answer(long status, const std::string& body, const std::string& location, bool json_answer);
// An answer's body read as the tracking API's JSON; null with `problem` set when
// it is not JSON at all (a web page, binary bytes). Never throws.
nlohmann::json parse_answer(const std::string& body, long status, std::string& problem);
// The string at a path of objects ("run", "info", "run_id"); "" when any step
// is missing or of another type.
std::string string_at(const nlohmann::json& body, std::initializer_list<const char*> path);

}  // namespace runner::mlflow
