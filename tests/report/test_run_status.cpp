// A status that stays true. A run recorded as running whose
// process is gone is listed as died (this host) or stale (another host whose
// heartbeat stopped), and every run's BEST column names its metric the same way.
#include "catch.h"

#include "report/run_history.h"
#include "report_fixtures.h"
#include "shared.h"
#include "util/process_info.h"

#include <nlohmann/json.hpp>

#include <ctime>
#include <sys/wait.h>
#include <unistd.h>

using runner::test::FakeRun;

namespace {

// A process of this host that has ended: its pid is free (or another process's).
runner::ProcessIdentity ended_process() {
  pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  runner::ProcessIdentity p = runner::current_process();
  p.pid = child;
  return p;
}

std::string utc_ago(long seconds) {
  std::time_t t = std::time(nullptr) - seconds;
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// A fake run recorded as running, owned by `owner`, whose last heartbeat was `ago` seconds ago.
std::string running_run(const std::string& parent, const std::string& folder, const std::string& name,
                        const runner::ProcessIdentity& owner, long ago) {
  FakeRun r;
  r.name = name;
  r.status = "running";
  std::string dir = runner::test::make_fake_run(parent, folder, r);
  nlohmann::json s = nlohmann::json::parse(runner::test::read_text(dir + "/summary.json"));
  s["process"] = runner::process_json(owner);
  s["heartbeat_utc"] = utc_ago(ago);
  s["heartbeat_every_s"] = 30;
  runner::test::write_text(dir + "/summary.json", s.dump(2));
  return dir;
}

}  // namespace

TEST_CASE("a run whose process is gone is listed as died, one silent elsewhere as stale", "[report]") {
  std::string runs = runner::test::tmp_dir("status-liveness") + "/runs";
  std::string died = running_run(runs, "20260101T000000Z-aaaaaa", "killed", ended_process(), 5);
  std::string alive = running_run(runs, "20260101T000000Z-bbbbbb", "going", runner::current_process(), 5);
  runner::ProcessIdentity remote = runner::current_process();
  remote.host = "another-node.example";
  std::string silent = running_run(runs, "20260101T000000Z-cccccc", "silent", remote, 600);
  std::string recent = running_run(runs, "20260101T000000Z-dddddd", "remote", remote, 5);

  CHECK(runner::load_run_history(died).status() == "died");
  CHECK(runner::load_run_history(alive).status() == "running");
  CHECK(runner::load_run_history(silent).status() == "stale");
  CHECK(runner::load_run_history(recent).status() == "running");

  auto status = runner::test::listed_status(runs);
  CHECK(status["killed"] == "died");
  CHECK(status["silent"] == "stale");
  CHECK(status["going"] == "running");

  auto report = runner::test::run_command(runner::test::runner_exe() + " report " + died + " --out " + runs + "/r.html");
  INFO(report.out);
  REQUIRE(report.exit_code == 0);
  CHECK(runner::test::read_text(runs + "/r.html").find("<th>status</th><td>died</td>") != std::string::npos);
}

TEST_CASE("ls names the best metric the same way whether the recipe wrote f1 or eval.f1", "[report]") {
  std::string runs = runner::test::tmp_dir("status-best-name") + "/runs";
  for (const char* metric : {"accuracy", "eval.accuracy"}) {
    FakeRun r;
    r.name = std::string("by_") + (metric[0] == 'e' ? "eval" : "plain");
    std::string dir = runner::test::make_fake_run(runs, "20260101T000000Z-aaaaaa", r);
    nlohmann::json s = nlohmann::json::parse(runner::test::read_text(dir + "/summary.json"));
    s["best"]["metric"] = metric;
    runner::test::write_text(dir + "/summary.json", s.dump(2));
  }
  auto r = runner::test::run_command(runner::test::runner_exe() + " ls " + runs);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  size_t first = r.out.find("eval.accuracy=0.7500");
  REQUIRE(first != std::string::npos);
  CHECK(r.out.find("eval.accuracy=0.7500", first + 1) != std::string::npos);
  CHECK(r.out.find(" accuracy=0.7500") == std::string::npos);
}
