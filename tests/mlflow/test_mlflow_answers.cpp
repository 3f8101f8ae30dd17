// A tracking server that answers what no MLflow server
// would (a web page, a redirect, binary bytes, JSON of the wrong shape, a huge
// or never-ending body, refusals) never ends, fails or holds the run: it is said
// once on stderr, the run completes, and the process exits soon after training
// whatever the server does. Passwords and tokens in MLFLOW_TRACKING_URI are
// never printed or recorded. The servers are tests/mlflow/fake_tracking_server.h.
#include "catch.h"

#include "fake_tracking_server.h"
#include "bounded_run.h"
#include "run_files.h"
#include "shared.h"
#include "util/redacted_uri.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <fstream>
#include <functional>
#include <mutex>

using runner::test::FakeTrackingServer;
using runner::test::TrackingAnswer;
using runner::test::TrackingRequest;
using runner::test::well_behaved_tracking;

namespace {

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The smoke recipe trained with the mlflow logger against `uri`, under `timeout`
// (a hung process is killed and shows as exit 124).
runner::test::BoundedResult train_against(const std::string& uri, const std::string& dir, int timeout_s = 120) {
  return runner::test::run_bounded("env MLFLOW_TRACKING_URI='" + uri + "' timeout " + std::to_string(timeout_s) +
                                   " " + runner::test::runner_exe() + " " + runner::test::smoke_recipe() +
                                   runner::test::isolated_run_sets(dir) + " --set run.loggers=jsonl,mlflow");
}

std::string summary_status(const std::string& dir) {
  auto summary = nlohmann::json::parse(runner::test::read_text(runner::test::only_run_dir(dir) + "/summary.json"),
                                       nullptr, false);
  return summary.is_object() ? summary.value("status", "") : "";
}

TrackingAnswer with_path(const TrackingRequest& r, const std::string& part, TrackingAnswer a) {
  return has(r.path, part) ? a : well_behaved_tracking(r);
}

struct HostileServer {
  std::string name;
  FakeTrackingServer::Route route;
  std::string said;  // what the one warning says
};

std::vector<HostileServer> hostile_servers() {
  std::string page = "<html><body>Directory listing</body></html>";
  std::string binary("\x00\xff\xfe\x89PNG\r\n\x1a\n", 12);
  return {
      {"a static file server",
       [page](const TrackingRequest& r) { return TrackingAnswer{r.method == "GET" ? 404 : 501, page}; },
       "is it an MLflow tracking server?"},
      {"a redirect to another host",
       [](const TrackingRequest&) {
         return TrackingAnswer{301, "", {"Location: http://elsewhere.invalid/api/2.0/mlflow/x"}};
       },
       "which is not followed"},
      {"a 200 with a binary body", [binary](const TrackingRequest&) { return TrackingAnswer{200, binary}; },
       "not the tracking API's JSON"},
      {"{} for runs/create",
       [](const TrackingRequest& r) { return with_path(r, "runs/create", {200, "{}"}); }, "run.info.run_id"},
      {"an experiment of the wrong JSON type",
       [](const TrackingRequest& r) {
         return with_path(r, "get-by-name", {200, R"({"experiment":["experiment_id", 7]})"});
       },
       "experiment.experiment_id"},
      {"an error code of the wrong JSON type",
       [](const TrackingRequest& r) {
         return with_path(r, "get-by-name", {404, R"({"error_code":{"a":1},"message":[1]})"});
       },
       "HTTP 404"},
      {"a 1 GiB answer",
       [](const TrackingRequest& r) {
         return with_path(r, "get-by-name", {200, std::string(1 << 16, ' '), {}, size_t(1) << 30});
       },
       "longer than 16777216 bytes"},
  };
}

}  // namespace

TEST_CASE("a tracking server's unexpected answer is said once and the run completes", "[mlflow]") {
  for (const auto& hostile : hostile_servers()) {
    FakeTrackingServer server(hostile.route);
    std::string dir = runner::test::tmp_dir("mlflow-hostile");
    auto r = train_against(server.url(), dir);
    INFO(hostile.name << "\n" << r.out);
    CHECK(r.exit_code == 0);
    CHECK(occurrences(r.out, hostile.said) == 1);
    CHECK(occurrences(r.out, "warning: mlflow") == 1);
    CHECK_FALSE(has(r.out, "terminate"));
    CHECK_FALSE(has(r.out, "json.exception"));
    CHECK(summary_status(dir) == "completed");
    // The 1 GiB answer is cut at 16 MiB as it arrives: what the server could
    // push is that plus the two sockets' buffers (a few MiB on Linux), far below 64 MiB.
    CHECK(server.body_bytes_sent() < (size_t(64) << 20));
  }
}

TEST_CASE("a trickling tracking server cannot hold the process after training", "[mlflow]") {
  // Every log-batch answer trickles a byte every 100 ms, forever: each request
  // ends at its own limit (20 s) or the 15 s the end of a run allows. The
  // smoke run trains in seconds, so 90 s leaves a margin of several times that.
  FakeTrackingServer server([](const TrackingRequest& r) {
    return with_path(r, "runs/log-batch", {200, "{}", {}, 0, 100});
  });
  std::string dir = runner::test::tmp_dir("mlflow-trickle");
  auto r = train_against(server.url(), dir, 90);
  INFO(r.out);
  CHECK(r.exit_code == 0);  // 124: the timeout killed a process that hung
  CHECK(summary_status(dir) == "completed");
  CHECK(occurrences(r.out, "warning: mlflow") >= 1);
}

TEST_CASE("SIGTERM after training ends a process waiting on a trickling tracking server", "[mlflow]") {
  FakeTrackingServer server([](const TrackingRequest& r) {
    return with_path(r, "runs/log-batch", {200, "{}", {}, 0, 100});
  });
  std::string dir = runner::test::tmp_dir("mlflow-sigterm");
  // Waits (60 s at most) for the end event, signals, and measures how long the
  // process still takes. Without the signal it would wait out the end's 15 s budget.
  std::string script = "MLFLOW_TRACKING_URI=" + server.url() + " " + runner::test::runner_exe() + " " +
                       runner::test::smoke_recipe() + runner::test::isolated_run_sets(dir) +
                       " --set run.loggers=jsonl,mlflow > " + dir + "/out.txt 2>&1 & pid=$!; "
                       "for i in $(seq 600); do grep -qs '\"event\":\"end\"' " + dir +
                       "/runs/*/*/metrics.jsonl && break; sleep 0.1; done; "
                       "kill -TERM $pid; start=$(date +%s%N); wait $pid; "
                       "echo elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))";
  std::ofstream(dir + "/signal.sh") << script << "\n";
  auto r = runner::test::run_command("bash " + dir + "/signal.sh");
  INFO(r.out << runner::test::read_text(dir + "/out.txt"));
  size_t at = r.out.find("elapsed_ms=");
  REQUIRE(at != std::string::npos);
  // The request in flight looks at the signal about once a second (libcurl's
  // progress interval): 5 s is that five times over, a third of the 15 s budget.
  CHECK(std::stol(r.out.substr(at + 11)) < 5000);
}

TEST_CASE("values the tracking server refuses are counted at the end", "[mlflow]") {
  std::mutex mu;
  size_t refused = 0;
  FakeTrackingServer server([&](const TrackingRequest& r) {
    if (!has(r.path, "runs/log-batch")) return well_behaved_tracking(r);
    auto body = nlohmann::json::parse(r.body);
    std::lock_guard<std::mutex> lock(mu);
    refused += body["metrics"].size() + body["params"].size();
    return TrackingAnswer{400, R"({"error_code":"INVALID_PARAMETER_VALUE","message":"no"})"};
  });
  std::string dir = runner::test::tmp_dir("mlflow-refusals");
  auto r = train_against(server.url(), dir);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  std::lock_guard<std::mutex> lock(mu);
  REQUIRE(refused > 0);
  CHECK(has(r.out, "refused " + std::to_string(refused) + " values in all"));
}

TEST_CASE("an artifact root that climbs out of the artifact store gets no upload", "[mlflow]") {
  FakeTrackingServer server([](const TrackingRequest& r) {
    return with_path(r, "runs/create",
                     {200, R"({"run":{"info":{"run_id":"r1","artifact_uri":"mlflow-artifacts:/../../../../etc/x"}}})"});
  });
  std::string dir = runner::test::tmp_dir("mlflow-artifact-root");
  auto r = train_against(server.url(), dir);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(has(r.out, "does not serve as a plain path"));
  for (const auto& request : server.requests()) {
    INFO(request);
    CHECK_FALSE(has(request, "PUT"));
  }
}

TEST_CASE("an artifact root that is not a string gets no upload, and the warning says so", "[mlflow]") {
  FakeTrackingServer server([](const TrackingRequest& r) {
    return with_path(r, "runs/create", {200, R"({"run":{"info":{"run_id":"r1","artifact_uri":5}}})"});
  });
  std::string dir = runner::test::tmp_dir("mlflow-artifact-number");
  auto r = train_against(server.url(), dir);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(has(r.out, "stores artifacts at a place its answer did not name"));
  for (const auto& request : server.requests()) CHECK_FALSE(has(request, "PUT"));
}

TEST_CASE("passwords and tokens of the tracking URI are never printed or recorded", "[mlflow]") {
  FakeTrackingServer server([](const TrackingRequest& r) {
    return with_path(r, "runs/log-batch", {400, R"({"error_code":"INVALID_PARAMETER_VALUE","message":"no"})"});
  });
  std::string dir = runner::test::tmp_dir("mlflow-secrets");
  auto r = train_against("http://alice:s3cr3tPW@" + server.host_port(), dir);
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(has(r.out, "http://***@" + server.host_port()));  // the refusal's warning names the server
  CHECK_FALSE(has(r.out, "s3cr3tPW"));
  std::string record = runner::test::read_text(runner::test::only_run_dir(dir) + "/mlflow.json");
  CHECK(has(record, "r1"));
  CHECK_FALSE(has(record, "s3cr3tPW"));

  int port = 0;
  int fd = runner::test::bound_loopback_socket(port);
  REQUIRE(fd >= 0);
  close(fd);  // nothing listens: the "cannot be reached" warning and the end's count line
  std::string unreachable = runner::test::tmp_dir("mlflow-token");
  auto t = train_against("http://127.0.0.1:" + std::to_string(port) + "/?token=T0KEN", unreachable);
  INFO(t.out);
  CHECK(has(t.out, "cannot be reached"));
  CHECK(has(t.out, "were not sent to"));
  CHECK_FALSE(has(t.out, "T0KEN"));
}

TEST_CASE("a URI is shown without its user information, query and fragment", "[mlflow]") {
  using runner::redacted_uri;
  CHECK(redacted_uri("http://alice:pw@host:5000/x") == "http://***@host:5000/x");
  CHECK(redacted_uri("https://a:p@ss@host/") == "https://***@host/");  // the last '@' ends it
  CHECK(redacted_uri("http://host/path@x") == "http://host/path@x");    // an '@' in the path is no user
  CHECK(redacted_uri("http://host/api?token=abc#frag") == "http://host/api?***");
  CHECK(redacted_uri("http://host:5000") == "http://host:5000");
  CHECK(redacted_uri("host?x=1") == "host?***");
  CHECK(redacted_uri("http://h/\x1b[2J") == "http://h/\\x1b[2J");
  // A password typed with a raw '#' or '?', and a URI with no scheme: nothing of the user shown.
  CHECK(redacted_uri("http://alice:pa#ss@127.0.0.1:18999") == "http://***@127.0.0.1:18999");
  CHECK(redacted_uri("http://alice:s3cret?pw@127.0.0.1:18999/api?x=1") == "http://***@127.0.0.1:18999/api?***");
  CHECK(redacted_uri("alice:s3cretpw@127.0.0.1:18999") == "***@127.0.0.1:18999");
}
