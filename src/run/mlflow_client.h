// The few calls of MLflow's tracking REST API (/api/2.0/mlflow/...) that the
// mlflow logger makes. Every call returns what happened instead of throwing:
// the logger decides whether to retry, and training never waits for it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace runner::mlflow {

struct Answer {
  bool ok = false;
  bool reached = false;  // an HTTP answer came (false: refused, timed out, dropped)
  long status = 0;
  std::string problem;   // why it failed, in words, for the one message a user sees
  nlohmann::json body;
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

class Client {
 public:
  // tracking_uri: "http://host:port" (a trailing slash is dropped).
  explicit Client(std::string tracking_uri, long timeout_s = 5);

  const std::string& uri() const { return uri_; }

  // The id of the experiment with this name, created when there is none.
  Answer experiment_id(const std::string& name, std::string& id) const;
  Answer create_run(const std::string& experiment_id, const std::string& run_name, long long start_ms,
                    const std::vector<KeyValue>& tags, std::string& run_id, std::string& artifact_uri) const;
  Answer log_batch(const std::string& run_id, const std::vector<Metric>& metrics,
                   const std::vector<KeyValue>& params, const std::vector<KeyValue>& tags) const;
  // status: RUNNING, FINISHED, FAILED or KILLED.
  Answer update_run(const std::string& run_id, const std::string& status, long long end_ms) const;
  // One file under the run's artifact root, through the server's artifact proxy
  // (artifact_uri "mlflow-artifacts:/..."): PUT /api/2.0/mlflow-artifacts/artifacts/...
  Answer upload_artifact(const std::string& artifact_uri, const std::string& relative_path,
                         const std::string& bytes) const;

 private:
  Answer call(const std::string& method, const std::string& path, const std::string& body,
              bool json_answer = true) const;

  std::string uri_;
  long timeout_s_;
};

// True for the artifact roots upload_artifact can write (the server proxies them).
bool proxied_artifacts(const std::string& artifact_uri);

}  // namespace runner::mlflow
