// A run killed with kill -9 after its tracking server took steps past its last
// checkpoint, then resumed: metrics.jsonl drops those steps and holds the
// resumed session's, and the server, which keeps every point it is sent, must
// end with the same steps of each metric, each once. The fake server keeps the
// points as MLflow does and answers runs/get with each metric's latest step.
#include "catch.h"

#include "fake_tracking_server.h"
#include "run_files.h"
#include "shared.h"

#include "train/logger.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <vector>

using runner::test::FakeTrackingServer;
using runner::test::TrackingAnswer;
using runner::test::TrackingRequest;

namespace {

// metric -> its steps, in the order they came.
using StepsByMetric = std::map<std::string, std::vector<long long>>;

// What an MLflow server holds of the one run: every point logged, and as the
// run's latest metrics each key's point of the highest step.
class PointStore {
 public:
  TrackingAnswer answer(const TrackingRequest& r) {
    std::lock_guard<std::mutex> lock(mu_);
    if (r.path.find("runs/log-batch") != std::string::npos) {
      for (const auto& m : nlohmann::json::parse(r.body).value("metrics", nlohmann::json::array()))
        steps_[m["key"]].push_back(m["step"].get<long long>());
      return {200, "{}"};
    }
    if (r.path.find("runs/get") != std::string::npos) {
      nlohmann::json latest = nlohmann::json::array();
      for (const auto& [key, steps] : steps_)
        latest.push_back({{"key", key}, {"value", 0.5}, {"step", *std::max_element(steps.begin(), steps.end())}});
      return {200, nlohmann::json{{"run", {{"data", {{"metrics", latest}}}}}}.dump()};
    }
    return runner::test::well_behaved_tracking(r);
  }
  StepsByMetric steps() {
    std::lock_guard<std::mutex> lock(mu_);
    return steps_;
  }

 private:
  std::mutex mu_;
  StepsByMetric steps_;
};

// The steps of each metric in metrics.jsonl, named as the logger names them.
StepsByMetric recorded_steps(const std::string& run_dir) {
  StepsByMetric out;
  for (const char* kind : {"train", "eval"})
    for (const auto& e : runner::test::events(run_dir, kind))
      for (const auto& [key, value] : e.items())
        if (!runner::is_event_bookkeeping(key) && value.is_number())
          out[std::string(kind) + "/" + key].push_back(e["step"].get<long long>());
  return out;
}

}  // namespace

TEST_CASE("after kill -9 and resume the tracking server holds each step of metrics.jsonl once", "[mlflow]") {
  PointStore store;
  FakeTrackingServer server([&store](const TrackingRequest& r) { return store.answer(r); });
  const std::string dir = runner::test::tmp_dir("mlflow-resume");
  const std::string env = "MLFLOW_TRACKING_URI=" + server.url() + " ";
  const std::string sets = runner::test::isolated_run_sets(dir) +
                           " --set run.loggers=jsonl,mlflow --set train.log_every=2 --set train.checkpoint_every=8";
  // Steps of 1 s after the checkpoint at 8: the logger, which sends every second, has
  // had 4 s to send step 10 when the process is killed at step 14 (12 perhaps too).
  auto killed = runner::test::run_command(env + "RUNNER_TEST_STEP_PAUSE_MS=1000 RUNNER_TEST_KILL_AT_STEP=14 " +
                                          runner::test::runner_exe() + " " + runner::test::smoke_recipe() + sets);
  REQUIRE(killed.exit_code != 0);
  StepsByMetric before = store.steps();
  REQUIRE(before.count("train/loss") == 1);
  REQUIRE(before["train/loss"].back() > 8);  // the server has steps past the checkpoint
  const std::string run_dir = runner::test::only_run_dir(dir);
  auto resumed = runner::test::run_command(env + runner::test::runner_exe() + " resume " + run_dir);
  INFO(resumed.out);
  REQUIRE(resumed.exit_code == 0);
  StepsByMetric held = store.steps(), recorded = recorded_steps(run_dir);
  CHECK(recorded["train/loss"].back() == 32);
  for (const auto& [key, steps] : recorded) {
    INFO(key);
    std::vector<long long> got = held[key];
    std::sort(got.begin(), got.end());
    CHECK(got == steps);  // each step once, none of the killed session's past the checkpoint
  }
  for (const auto& [key, steps] : held) CHECK(recorded.count(key) == 1);
}
