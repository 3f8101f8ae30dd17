#include "run/mlflow_client.h"

#include "hub/http_client.h"

#include <cctype>

namespace runner::mlflow {
namespace {

constexpr const char* kApi = "/api/2.0/mlflow/";
constexpr const char* kArtifactScheme = "mlflow-artifacts:/";

nlohmann::json key_values(const std::vector<KeyValue>& items) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& kv : items) out.push_back({{"key", kv.key}, {"value", kv.value}});
  return out;
}

std::string url_escaped(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      static const char* hex = "0123456789ABCDEF";
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// MLflow's error answers are {"error_code": "...", "message": "..."}.
std::string server_problem(long status, const nlohmann::json& body) {
  std::string what = "HTTP " + std::to_string(status);
  if (body.is_object() && body.contains("error_code"))
    what += " " + body.value("error_code", "") + ": " + body.value("message", "");
  return what;
}

}  // namespace

Client::Client(std::string tracking_uri, long timeout_s) : uri_(std::move(tracking_uri)), timeout_s_(timeout_s) {
  while (!uri_.empty() && uri_.back() == '/') uri_.pop_back();
}

// JSON answers are parsed; an upload's answer only needs its status.
Answer Client::call(const std::string& method, const std::string& path, const std::string& body,
                    bool json_answer) const {
  hub::HttpRequest request;
  request.url = uri_ + path;
  request.method = method == "GET" ? "" : method;
  request.body = body;
  request.timeout_s = timeout_s_;
  request.follow_redirects = false;
  request.headers.push_back(json_answer ? "Content-Type: application/json"
                                        : "Content-Type: application/octet-stream");
  hub::HttpResponse response = hub::http_fetch(request);
  Answer a;
  a.status = response.status;
  a.reached = response.status != 0 && response.transport_error.empty();
  if (!a.reached) {
    a.problem = response.transport_error.empty() ? "no answer" : response.transport_error;
    return a;
  }
  a.body = nlohmann::json::parse(response.body, nullptr, false);
  a.ok = response.status >= 200 && response.status < 300 && (!json_answer || !a.body.is_discarded());
  if (!a.ok) a.problem = server_problem(response.status, a.body);
  return a;
}

Answer Client::experiment_id(const std::string& name, std::string& id) const {
  Answer a = call("GET", std::string(kApi) + "experiments/get-by-name?experiment_name=" + url_escaped(name), "");
  if (a.ok) {
    id = a.body["experiment"].value("experiment_id", "");
    return a;
  }
  if (!a.reached || a.body.value("error_code", "") != "RESOURCE_DOES_NOT_EXIST") return a;
  a = call("POST", std::string(kApi) + "experiments/create", nlohmann::json{{"name", name}}.dump());
  if (a.ok) id = a.body.value("experiment_id", "");
  return a;
}

Answer Client::create_run(const std::string& experiment_id, const std::string& run_name, long long start_ms,
                          const std::vector<KeyValue>& tags, std::string& run_id,
                          std::string& artifact_uri) const {
  nlohmann::json body{{"experiment_id", experiment_id}, {"run_name", run_name},
                      {"start_time", start_ms}, {"tags", key_values(tags)}};
  Answer a = call("POST", std::string(kApi) + "runs/create", body.dump());
  if (a.ok) {
    const nlohmann::json& info = a.body["run"]["info"];
    run_id = info.value("run_id", "");
    artifact_uri = info.value("artifact_uri", "");
  }
  return a;
}

Answer Client::log_batch(const std::string& run_id, const std::vector<Metric>& metrics,
                         const std::vector<KeyValue>& params, const std::vector<KeyValue>& tags) const {
  nlohmann::json m = nlohmann::json::array();
  for (const auto& x : metrics)
    m.push_back({{"key", x.key}, {"value", x.value}, {"timestamp", x.timestamp_ms}, {"step", x.step}});
  nlohmann::json body{{"run_id", run_id}, {"metrics", m}, {"params", key_values(params)},
                      {"tags", key_values(tags)}};
  return call("POST", std::string(kApi) + "runs/log-batch", body.dump());
}

Answer Client::update_run(const std::string& run_id, const std::string& status, long long end_ms) const {
  nlohmann::json body{{"run_id", run_id}, {"status", status}};
  if (end_ms > 0) body["end_time"] = end_ms;
  return call("POST", std::string(kApi) + "runs/update", body.dump());
}

bool proxied_artifacts(const std::string& artifact_uri) {
  return artifact_uri.rfind(kArtifactScheme, 0) == 0;
}

Answer Client::upload_artifact(const std::string& artifact_uri, const std::string& relative_path,
                               const std::string& bytes) const {
  std::string root = artifact_uri.substr(std::string(kArtifactScheme).size());
  while (!root.empty() && root.front() == '/') root.erase(root.begin());
  return call("PUT", "/api/2.0/mlflow-artifacts/artifacts/" + root + "/" + relative_path, bytes, false);
}

}  // namespace runner::mlflow
