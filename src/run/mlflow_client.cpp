#include "run/mlflow_client.h"

#include "hub/http_client.h"
#include "util/json_input.h"
#include "util/numbers.h"
#include "util/redacted_uri.h"
#include "util/utf8.h"

#include <cctype>
#include <optional>

namespace runner::mlflow {
namespace {

constexpr const char* kApi = "/api/2.0/mlflow/";
constexpr const char* kArtifactScheme = "mlflow-artifacts:/";
// A server's own message is quoted in a warning: a sentence, not a page.
constexpr size_t kMaxQuotedChars = 200;

nlohmann::json key_values(const std::vector<KeyValue>& items) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& kv : items) out.push_back({{"key", kv.key}, {"value", kv.value}});
  return out;
}

// Names the runner sends (a run directory's name, a recipe's values) may hold
// bytes that are not UTF-8: they are replaced rather than stopping the request.
std::string json_text(const nlohmann::json& body) {
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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

// The segments of a slash-separated path, empty ones left out.
std::vector<std::string> segments(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (end > start) out.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::string escaped_path(const std::string& path) {
  std::string out;
  for (const auto& s : segments(path)) out += (out.empty() ? "" : "/") + url_escaped(s);
  return out;
}

std::string shown_briefly(const std::string& text) {
  std::string shown = text.size() > kMaxQuotedChars ? text.substr(0, kMaxQuotedChars) + "..." : text;
  return terminal_safe(shown);
}

// MLflow's error answers are {"error_code": "...", "message": "..."}.
std::string server_problem(long status, const nlohmann::json& body, const std::string& location) {
  std::string what = "HTTP " + std::to_string(status);
  if (status >= 300 && status < 400)
    return what + ", a redirect to " + redacted_uri(location) +
           ", which is not followed: set MLFLOW_TRACKING_URI to the address the server answers on";
  std::string code = string_at(body, {"error_code"});
  if (!code.empty()) what += " " + shown_briefly(code) + ": " + shown_briefly(string_at(body, {"message"}));
  return what;
}

// A 2xx answer without the field the call needs is no tracking server's answer.
Answer missing_field(Answer a, const char* what) {
  a.ok = false;
  a.problem = std::string("HTTP ") + std::to_string(a.status) + " without " + what +
              "; is it an MLflow tracking server?";
  return a;
}

}  // namespace

Answer read_answer(long status, const std::string& body, const std::string& location, bool json_answer) {
  Answer a;
  a.status = status;
  a.reached = true;
  std::string not_json;
  a.body = parse_answer(body, status, not_json);
  bool success = status >= 200 && status < 300;
  a.ok = success && (!json_answer || not_json.empty());
  if (!success) a.problem = server_problem(status, a.body, location);
  else if (!a.ok) a.problem = not_json;
  if (!success && json_answer && !not_json.empty() && status >= 400)
    a.problem += " with an answer that is not the tracking API's JSON; is it an MLflow tracking server?";
  return a;
}

nlohmann::json parse_answer(const std::string& body, long status, std::string& problem) {
  std::string why;
  std::optional<nlohmann::json> parsed = try_parse_json(body, why);
  if (parsed) return *parsed;
  problem = "HTTP " + std::to_string(status) + " with an answer that is not the tracking API's JSON (" +
            shown_briefly(why) + "); is it an MLflow tracking server?";
  return nullptr;
}

std::string string_at(const nlohmann::json& body, std::initializer_list<const char*> path) {
  const nlohmann::json* node = &body;
  for (const char* key : path) {
    if (!node->is_object()) return "";
    auto it = node->find(key);
    if (it == node->end()) return "";
    node = &*it;
  }
  return node->is_string() ? node->get<std::string>() : "";
}

Client::Client(std::string tracking_uri, long timeout_s) : uri_(std::move(tracking_uri)), timeout_s_(timeout_s) {
  while (!uri_.empty() && uri_.back() == '/') uri_.pop_back();
  shown_uri_ = redacted_uri(uri_);
}

// JSON answers are parsed; an upload's answer only needs its status.
Answer Client::call(const std::string& method, const std::string& path, const std::string& body,
                    bool json_answer) const {
  hub::HttpRequest request;
  request.url = uri_ + path;
  request.method = method == "GET" ? "" : method;
  request.body = body;
  request.timeout_s = timeout_s_;
  request.total_timeout_ms =
      4000 * timeout_s_ + std::chrono::duration_cast<std::chrono::milliseconds>(upload_allowance(body.size())).count();
  request.max_body_bytes = kMaxAnswerBytes;
  request.should_stop = give_up_;
  request.follow_redirects = false;
  request.headers.push_back(json_answer ? "Content-Type: application/json"
                                        : "Content-Type: application/octet-stream");
  hub::HttpResponse response = hub::http_fetch(request);
  Answer a;
  a.status = response.status;
  // An answer cut off for its size did come: it is refused, not retried.
  a.reached = response.status != 0 && (response.transport_error.empty() || response.too_large);
  if (response.too_large) {
    a.problem = response.transport_error + "; is it an MLflow tracking server?";
    return a;
  }
  if (!a.reached) {
    a.problem = response.transport_error.empty() ? "no answer" : response.transport_error;
    return a;
  }
  return read_answer(response.status, response.body, response.header("location"), json_answer);
}

Answer Client::experiment_id(const std::string& name, std::string& id) const {
  Answer a = call("GET", std::string(kApi) + "experiments/get-by-name?experiment_name=" + url_escaped(name), "");
  if (a.ok) {
    id = string_at(a.body, {"experiment", "experiment_id"});
    return id.empty() ? missing_field(a, "experiment.experiment_id") : a;
  }
  if (!a.reached || string_at(a.body, {"error_code"}) != "RESOURCE_DOES_NOT_EXIST") return a;
  a = call("POST", std::string(kApi) + "experiments/create", json_text({{"name", name}}));
  if (!a.ok) return a;
  id = string_at(a.body, {"experiment_id"});
  return id.empty() ? missing_field(a, "experiment_id") : a;
}

Answer Client::create_run(const std::string& experiment_id, const std::string& run_name, long long start_ms,
                          const std::vector<KeyValue>& tags, std::string& run_id,
                          std::string& artifact_uri) const {
  nlohmann::json body{{"experiment_id", experiment_id}, {"run_name", run_name},
                      {"start_time", start_ms}, {"tags", key_values(tags)}};
  Answer a = call("POST", std::string(kApi) + "runs/create", json_text(body));
  if (!a.ok) return a;
  run_id = string_at(a.body, {"run", "info", "run_id"});
  artifact_uri = string_at(a.body, {"run", "info", "artifact_uri"});
  return run_id.empty() ? missing_field(a, "run.info.run_id") : a;
}

Answer Client::log_batch(const std::string& run_id, const std::vector<Metric>& metrics,
                         const std::vector<KeyValue>& params, const std::vector<KeyValue>& tags) const {
  nlohmann::json m = nlohmann::json::array();
  for (const auto& x : metrics)
    m.push_back({{"key", x.key}, {"value", x.value}, {"timestamp", x.timestamp_ms}, {"step", x.step}});
  nlohmann::json body{{"run_id", run_id}, {"metrics", m}, {"params", key_values(params)},
                      {"tags", key_values(tags)}};
  return call("POST", std::string(kApi) + "runs/log-batch", json_text(body));
}

Answer Client::latest_steps(const std::string& run_id, std::map<std::string, long long>& steps) const {
  Answer a = call("GET", std::string(kApi) + "runs/get?run_id=" + url_escaped(run_id), "");
  if (!a.ok) return a;
  const nlohmann::json* metrics = &a.body;
  for (const char* key : {"run", "data", "metrics"})
    metrics = metrics->is_object() && metrics->contains(key) ? &(*metrics)[key] : nullptr;
  if (!metrics || !metrics->is_array()) return a;  // a run without metrics has none to list
  for (const auto& m : *metrics) {
    if (!m.is_object() || !m.contains("key") || !m["key"].is_string() || !m.contains("step")) continue;
    const nlohmann::json& step = m["step"];  // a number, or the int64 as a string
    std::optional<long long> n;
    if (step.is_number_integer()) n = step.get<long long>();
    std::string why;
    if (step.is_string()) n = parse_integer(step.get<std::string>(), why);
    if (n) steps[m["key"].get<std::string>()] = *n;
  }
  return a;
}

Answer Client::update_run(const std::string& run_id, const std::string& status, long long end_ms) const {
  nlohmann::json body{{"run_id", run_id}, {"status", status}};
  if (end_ms > 0) body["end_time"] = end_ms;
  return call("POST", std::string(kApi) + "runs/update", json_text(body));
}

bool proxied_artifacts(const std::string& artifact_uri) {
  if (artifact_uri.rfind(kArtifactScheme, 0) != 0) return false;
  for (const auto& s : segments(artifact_uri.substr(std::string(kArtifactScheme).size())))
    if (s == "." || s == "..") return false;
  return true;
}

Answer Client::upload_artifact(const std::string& artifact_uri, const std::string& relative_path,
                               const std::string& bytes) const {
  std::string root = escaped_path(artifact_uri.substr(std::string(kArtifactScheme).size()));
  return call("PUT", "/api/2.0/mlflow-artifacts/artifacts/" + root + "/" + escaped_path(relative_path), bytes,
              false);
}

}  // namespace runner::mlflow
