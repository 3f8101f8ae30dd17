// The run-directory model: summary.json with each status read back, a running
// run's liveness from its owner and heartbeat, and a torn or garbled file
// refused with an error naming it; env.json read back.
#include "run/run_dir.h"
#include "run/env_record.h"
#include "run/run_search.h"
#include "run/run_summary.h"
#include "util/diagnostic.h"
#include "util/process_info.h"

#include "shared.h"

#include "catch.h"

#include <nlohmann/json.hpp>

#include <ctime>
#include <filesystem>
#include <fstream>

#include <sys/wait.h>
#include <unistd.h>

using namespace runner;
namespace fs = std::filesystem;

namespace {

RunPaths run_with_summary(const std::string& name, const std::string& text) {
  RunPaths p{runner::test::tmp_dir("run_summary_" + name)};
  std::ofstream(p.summary()) << text;
  return p;
}

RunSummary summary_with(const std::string& name, const nlohmann::json& record) {
  return read_run_summary(run_with_summary(name, record.dump()));
}

std::string utc_seconds_ago(long long seconds) {
  std::time_t t = std::time(nullptr) - seconds;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// A process of this host and boot that has exited: its pid names nobody now.
ProcessIdentity exited_process() {
  pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  ProcessIdentity p = current_process();
  p.pid = child;
  return p;
}

}  // namespace

TEST_CASE("run summary: each recorded status reads back as written", "[run]") {
  for (const char* status : {"running", "completed", "interrupted", "failed"}) {
    RunSummary s = summary_with(std::string("status_") + status, {{"status", status}, {"global_step", 12}});
    CHECK(s.present);
    CHECK(s.status == status);
    CHECK(s.recorded_status() == status);
    CHECK(s.completed() == (std::string(status) == "completed"));
    CHECK(s.record.at("global_step") == 12);
  }
}

TEST_CASE("run summary: none, an edited status and a record that is no object", "[run]") {
  RunPaths none{runner::test::tmp_dir("run_summary_none")};
  CHECK_FALSE(read_run_summary(none).present);
  CHECK_FALSE(read_run_summary_if_readable(none));
  RunSummary edited = summary_with("edited", {{"status", 3}});
  CHECK(edited.status_not_a_string);
  CHECK(edited.recorded_status() == "unknown");
  CHECK(run_status(RunPaths{fs::path(runner::test::tmp_dir("run_summary_edited")).string()}, edited, true) ==
        "unknown");
  RunSummary list = read_run_summary(run_with_summary("list", "[1, 2]"));
  CHECK(list.present);
  CHECK(list.record == nlohmann::json::object());
  CHECK(list.recorded_status() == "unknown");
}

TEST_CASE("run summary: a torn or garbled summary.json is refused naming the file", "[run]") {
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"torn", "{\"status\": \"runn"}, {"garbled", "\x01\x02 not json"}}) {
    RunPaths p = run_with_summary(name, text);
    INFO(name);
    try {
      read_run_summary(p);
      FAIL("expected an InputError");
    } catch (const InputError& e) {
      const std::string message = e.diagnostic().format();
      CHECK(message.find(p.summary()) != std::string::npos);
      CHECK(message.find("damaged or was cut short") != std::string::npos);
    }
    // Where an unreadable summary means "none yet" (--resume auto, the heartbeat's
    // segments), it reads as absent.
    CHECK_FALSE(read_run_summary_if_readable(p));
  }
}

TEST_CASE("run summary: a running run is live while its process is, and died when it is gone", "[run]") {
  nlohmann::json record = {{"status", "running"}, {"heartbeat_utc", utc_seconds_ago(0)}, {"heartbeat_every_s", 30}};
  record["process"] = process_json(current_process());
  RunSummary live = summary_with("live", record);
  REQUIRE(live.owner);
  CHECK(live.liveness() == "running");
  record["process"] = process_json(exited_process());
  CHECK(summary_with("dead", record).liveness() == "died");
}

TEST_CASE("run summary: on another host a heartbeat missed three times is stale", "[run]") {
  ProcessIdentity elsewhere{4242, "another-host-of-the-cluster", "", 0};
  nlohmann::json record = {{"status", "running"}, {"heartbeat_every_s", 10}, {"process", process_json(elsewhere)}};
  record["heartbeat_utc"] = utc_seconds_ago(5);
  CHECK(summary_with("fresh", record).liveness() == "running");
  // Three beats of 10 s are 30 s, under the floor of a minute: 61 s is past both.
  record["heartbeat_utc"] = utc_seconds_ago(61);
  CHECK(summary_with("stale", record).liveness() == "stale");
  // A record without an owner (an older run) stays running.
  CHECK(summary_with("ownerless", {{"status", "running"}}).liveness() == "running");
}

TEST_CASE("run search: the newest run of a name whose summary is not completed", "[run]") {
  const std::string out = runner::test::tmp_dir("run_summary_search");
  auto make = [&](const std::string& leaf, const std::string& summary) {
    RunPaths p{out + "/name/" + leaf};
    fs::create_directories(p.dir);
    std::ofstream(p.env()) << "{}";
    if (!summary.empty()) std::ofstream(p.summary()) << summary;
    return p.dir;
  };
  make("20260101T000000Z-000001", R"({"status": "failed"})");
  make("20260101T000000Z-000002", R"({"status": "completed"})");
  CHECK(newest_unfinished_run(out, "name") == out + "/name/20260101T000000Z-000001");
  const std::string torn = make("20260101T000000Z-000003", R"({"status": "compl)");
  CHECK(newest_unfinished_run(out, "name") == torn);  // killed before its summary was whole
  CHECK(looks_like_run_dir(torn));
  CHECK(find_run_dirs(out).size() == 3);
}

TEST_CASE("env record: absent reads as empty where it may be missing, torn is refused naming it", "[run]") {
  RunPaths p{runner::test::tmp_dir("run_env_record")};
  CHECK(read_env_record_if_present(p).record == nlohmann::json::object());
  CHECK_THROWS_AS(read_env_record(p), InputError);  // a resume needs it
  std::ofstream(p.env()) << R"({"recipe": {"path": "/r.toml", "overrides": ["a=1"]}, "host": "h")";
  CHECK_THROWS_WITH(read_env_record_if_present(p), Catch::Contains(p.env()));
  std::ofstream(p.env(), std::ios::trunc) << R"({"recipe": {"path": "/r.toml", "overrides": ["a=1"]}})";
  RecipeOrigin origin = origin_from_env(read_env_record(p).record, p.env());
  CHECK(origin.path == "/r.toml");
  CHECK(origin.overrides == std::vector<std::string>{"a=1"});
}

TEST_CASE("env record: its fields read back typed, and a hand-edited field reads as empty", "[run]") {
  RunPaths p{runner::test::tmp_dir("run_env_typed")};
  std::ofstream(p.env()) << R"({"runner_version": "1.2", "host": "h1", "cpu_model": 7, "gpu_model": "none",
    "device": "cpu", "threads": 4, "started_utc": "2026-01-01T00:00:00Z",
    "recipe": {"path": "/r.toml", "overrides": ["a=1", 7]},
    "content_sha256": {"/d/train.tsv": "ab12", "/d/dev.tsv": 5}, "extra": [1]})";
  const EnvRecord e = read_env_record(p);
  CHECK(e.runner_version == "1.2");
  CHECK(e.host == "h1");
  CHECK(e.cpu_model.empty());
  CHECK(e.threads == 4);
  CHECK(e.started_utc == "2026-01-01T00:00:00Z");
  CHECK(e.origin.path == "/r.toml");
  CHECK(e.origin.overrides == std::vector<std::string>{"a=1"});
  CHECK(e.content_sha256.at("/d/train.tsv") == "ab12");
  CHECK(e.content_sha256.at("/d/dev.tsv") == "5");  // shown as written, never dropped
  CHECK(e.record.at("extra") == nlohmann::json::array({1}));  // the whole file stays for diffs
  CHECK_THROWS_AS(origin_from_env(e.record, p.env()), InputError);  // a resume loads strictly
  // A record that is not an object reads as empty rather than failing a report.
  CHECK(env_record_from(nlohmann::json::array()).host.empty());
}
