// `ls` and `report` ask the run's lock (run/run_lock.h) before the records. A process holding it is the trainer, so
// the run is running whatever summary.json says; a lock file nobody holds means
// the process is gone, so a recorded "running" is died however the owner
// record was edited (a live pid, a negative one, a heartbeat in year 2999).
#include "catch.h"

#include "report/run_history.h"
#include "report_fixtures.h"
#include "run/run_lock.h"
#include "shared.h"
#include "util/process_info.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include <sys/stat.h>

using runner::test::FakeRun;
using runner::test::listed_status;

namespace {

// A fake run whose summary.json has `edit` applied, with an owner.lock nobody holds.
std::string edited_run(const std::string& runs, const std::string& name, const nlohmann::json& edit) {
  FakeRun r;
  r.name = name;
  r.status = "running";
  std::string dir = runner::test::make_fake_run(runs, "20260101T000000Z-aaaaaa", r);
  nlohmann::json s = nlohmann::json::parse(runner::test::read_text(dir + "/summary.json"));
  s.merge_patch(edit);
  runner::test::write_text(dir + "/summary.json", s.dump(2));
  std::ofstream(runner::owner_lock_path(dir)) << R"({"pid": 1, "host": "elsewhere"})";
  return dir;
}

}  // namespace

TEST_CASE("a run's lock nobody holds makes an edited owner record died, never running", "[report]") {
  std::string runs = runner::test::tmp_dir("owner-edited") + "/runs";
  nlohmann::json me = runner::process_json(runner::current_process());  // alive: this very process
  edited_run(runs, "live-pid", {{"process", me}});
  nlohmann::json negative = me;
  negative["pid"] = -5;
  edited_run(runs, "negative-pid", {{"process", negative}});
  nlohmann::json remote = me;
  remote["host"] = "elsewhere";
  edited_run(runs, "future-heartbeat", {{"process", remote}, {"heartbeat_utc", "2999-01-01T00:00:00Z"}});
  edited_run(runs, "number-status", {{"status", 5}});
  auto status = listed_status(runs);
  CHECK(status["live-pid"] == "died");
  CHECK(status["negative-pid"] == "died");
  CHECK(status["future-heartbeat"] == "died");
  CHECK(status["number-status"] == "unknown");
}

TEST_CASE("a heartbeat from the future makes a run without a lock stale, not running forever", "[report]") {
  std::string runs = runner::test::tmp_dir("owner-future") + "/runs";
  nlohmann::json remote = runner::process_json(runner::current_process());
  remote["host"] = "elsewhere";
  std::string dir = edited_run(runs, "future", {{"process", remote}, {"heartbeat_utc", "2999-01-01T00:00:00Z"}});
  std::filesystem::remove(runner::owner_lock_path(dir));  // a run from before the lock
  CHECK(runner::load_run_history(dir).status() == "stale");
}

TEST_CASE("a run whose lock is held is running whatever its summary says", "[report]") {
  std::string runs = runner::test::tmp_dir("owner-held") + "/runs";
  std::string dir = edited_run(runs, "held", {{"status", "died"}});
  runner::own_run_dir(dir);  // this test process holds it until it ends
  CHECK(listed_status(runs)["held"] == "running");
  CHECK(runner::run_owner(dir) == runner::RunOwner::Live);
}

TEST_CASE("a lock file that is a link, a FIFO or a directory is no run's lock: ls answers at once, unknown",
          "[report]") {
  std::string root = runner::test::tmp_dir("owner-foreign");
  std::string runs = root + "/runs";
  std::string held = edited_run(runs, "held-elsewhere", {{"status", "completed"}});
  runner::own_run_dir(held);  // a live lock, which a link must not lend to another run
  auto replaced = [&](const std::string& name) {
    std::string dir = edited_run(runs, name, {{"status", "completed"}});
    std::filesystem::remove(runner::owner_lock_path(dir));
    return runner::owner_lock_path(dir);
  };
  std::filesystem::create_symlink(runner::owner_lock_path(held), replaced("symlink"));
  std::filesystem::create_hard_link(runner::owner_lock_path(held), replaced("hard-link"));
  REQUIRE(::mkfifo(replaced("fifo").c_str(), 0644) == 0);  // opened to read, it would wait for a writer
  std::filesystem::create_directory(replaced("directory"));

  auto status = listed_status(runs);  // bounded by `timeout`: a FIFO read would hang
  CHECK(status["symlink"] == "unknown");
  CHECK(status["hard-link"] == "unknown");
  CHECK(status["fifo"] == "unknown");
  CHECK(status["directory"] == "unknown");
  CHECK(status["held-elsewhere"] == "unknown");  // its lock has two names now: it cannot tell which run is its
}

TEST_CASE("a completed run gives its lock file back, and a later owner makes a new one", "[report]") {
  FakeRun r;
  r.name = "released";
  std::string dir = runner::test::make_fake_run(runner::test::tmp_dir("run-owner-released"), "20260101T000000Z-bbbbbb", r);
  runner::own_run_dir(dir);
  CHECK(runner::run_owner(dir) == runner::RunOwner::Live);
  runner::release_run_dir(dir);
  CHECK_FALSE(std::filesystem::exists(runner::owner_lock_path(dir)));
  CHECK(runner::run_owner(dir) == runner::RunOwner::Absent);
  CHECK(listed_status(dir + "/..")["released"] == "completed");
  runner::release_run_dir(dir);  // not owned any more: nothing happens
  runner::own_run_dir(dir);
  CHECK(runner::run_owner(dir) == runner::RunOwner::Live);
  runner::release_run_dir(dir);
  CHECK_FALSE(std::filesystem::exists(runner::owner_lock_path(dir)));
}
