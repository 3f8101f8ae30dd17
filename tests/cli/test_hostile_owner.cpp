// One process at a time trains a run directory. The
// training process holds the run's lock (run/run_lock.h) for its whole life;
// another `runner resume` of the run, or one started while the run's own
// process trains, is refused with exit 2 naming the owner and changes nothing.
#include "catch.h"

#include "run_files.h"
#include "shared.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

using runner::test::run_command;
using runner::test::runner_exe;

namespace {

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

std::string summary_status(const std::string& run_dir) {
  auto s = nlohmann::json::parse(runner::test::read_text(run_dir + "/summary.json"), nullptr, false);
  return s.is_object() ? s.value("status", "") : "";
}

// Each step held for `pause_ms`, so that the session is still training while
// the test starts another process: the smoke recipe's 32 steps take 32 x pause_ms at least.
std::string slow(int pause_ms) { return "RUNNER_TEST_STEP_PAUSE_MS=" + std::to_string(pause_ms) + " "; }

}  // namespace

TEST_CASE("a resume while the run's own process trains is refused and the owner completes", "[cli]") {
  std::string dir = runner::test::tmp_dir("owner-own");
  // The run in the background (32 steps of 250 ms: 8 s at least); as soon as its
  // first train event is written, a resume of its directory.
  std::string script = slow(250) + runner_exe() + " " + runner::test::smoke_recipe() +
                       runner::test::isolated_run_sets(dir) + " > " + dir + "/owner.out 2>&1 & owner=$!; "
                       "for i in $(seq 600); do grep -qs '\"event\":\"train\"' " + dir +
                       "/runs/*/*/metrics.jsonl && break; sleep 0.1; done; " + runner_exe() + " resume " + dir +
                       "/runs/mrpc_smoke/* > " + dir + "/second.out 2>&1; echo second=$?; wait $owner; echo owner=$?";
  std::ofstream(dir + "/own.sh") << script << "\n";
  auto r = run_command("bash " + dir + "/own.sh");
  std::string second = runner::test::read_text(dir + "/second.out");
  INFO(r.out << "\n--- second:\n" << second << "\n--- owner:\n" << runner::test::read_text(dir + "/owner.out"));
  CHECK(has(r.out, "second=2"));
  CHECK(has(r.out, "owner=0"));
  CHECK(has(second, "this run is being trained by process"));
  CHECK(has(second, "nothing in"));
  std::string run_dir = runner::test::only_run_dir(dir);
  CHECK(summary_status(run_dir) == "completed");
  auto ends = runner::test::events(run_dir, "end");
  REQUIRE(ends.size() == 1);
  CHECK(ends[0]["status"] == "completed");
  CHECK(runner::test::events(run_dir, "train").size() == 8);  // 32 steps logged every 4, none twice
}

TEST_CASE("two concurrent resumes of one run: exactly one trains", "[cli]") {
  std::string dir = runner::test::tmp_dir("owner-two");
  auto first = run_command(runner_exe() + " " + runner::test::smoke_recipe() + runner::test::isolated_run_sets(dir));
  REQUIRE(first.exit_code == 0);
  std::string run_dir = runner::test::only_run_dir(dir);
  // Two more epochs (32 steps of 200 ms, 6 s at least), asked for twice at once.
  std::string resume = slow(200) + runner_exe() + " resume " + run_dir +
                       " --set train.epochs=4 --allow-changes train.epochs";
  std::ofstream(dir + "/two.sh") << resume << " > " << dir << "/a.out 2>&1 & a=$!\n"
                                 << resume << " > " << dir << "/b.out 2>&1 & b=$!\n"
                                 << "wait $a; echo a=$?; wait $b; echo b=$?\n";
  auto r = run_command("bash " + dir + "/two.sh");
  std::string a = runner::test::read_text(dir + "/a.out"), b = runner::test::read_text(dir + "/b.out");
  INFO(r.out << "\n--- a:\n" << a << "\n--- b:\n" << b);
  bool a_trained = has(r.out, "a=0"), b_trained = has(r.out, "b=0");
  CHECK(a_trained != b_trained);
  CHECK((has(r.out, "a=2") || has(r.out, "b=2")));
  CHECK(has(a_trained ? b : a, "this run is being trained by process"));
  CHECK(summary_status(run_dir) == "completed");
  CHECK(runner::test::events(run_dir, "end").back()["status"] == "completed");
  CHECK(runner::test::events(run_dir, "train").back()["step"] == 64);
}

TEST_CASE("a resume refuses a lock file that is a symbolic link or a FIFO, and writes through neither",
          "[cli]") {
  std::string dir = runner::test::tmp_dir("owner-foreign-resume");
  auto first = run_command(runner_exe() + " " + runner::test::smoke_recipe() + runner::test::isolated_run_sets(dir));
  REQUIRE(first.exit_code == 0);
  std::string run_dir = runner::test::only_run_dir(dir);
  std::string lock = run_dir + "/owner.lock", victim = dir + "/victim.txt";
  const std::string before = runner::test::read_text(run_dir + "/summary.json");
  auto resume = [&] {  // `timeout`: a FIFO opened to write or read could wait forever
    return run_command("timeout 60 " + runner_exe() + " resume " + run_dir +
                       " --set train.epochs=3 --allow-changes train.epochs");
  };

  std::ofstream(victim) << "precious";
  std::remove(lock.c_str());
  REQUIRE(::symlink(victim.c_str(), lock.c_str()) == 0);
  auto r = resume();
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(has(r.out, "owner.lock: error: the run's lock file is a symbolic link"));
  CHECK(has(r.out, "rm " + lock));
  CHECK(runner::test::read_text(victim) == "precious");

  std::remove(lock.c_str());
  REQUIRE(::mkfifo(lock.c_str(), 0644) == 0);
  r = resume();
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(has(r.out, "the run's lock file is a special file"));
  CHECK(runner::test::read_text(run_dir + "/summary.json") == before);
}

TEST_CASE("a resume after the owner's lock file was removed is refused by the owner's recorded heartbeat",
          "[cli]") {
  std::string dir = runner::test::tmp_dir("owner-lock-removed");
  // The owner trains in the background (32 steps of 250 ms); once it has logged a
  // step, its lock file is removed, as `rm` or `mv` would, and the run resumed.
  std::string script = slow(250) + runner_exe() + " " + runner::test::smoke_recipe() +
                       runner::test::isolated_run_sets(dir) + " > " + dir + "/owner.out 2>&1 & owner=$!; "
                       "for i in $(seq 600); do grep -qs '\"event\":\"train\"' " + dir +
                       "/runs/*/*/metrics.jsonl && break; sleep 0.1; done; rm " + dir +
                       "/runs/mrpc_smoke/*/owner.lock; " + runner_exe() + " resume " + dir +
                       "/runs/mrpc_smoke/* > " + dir + "/second.out 2>&1; echo second=$?; "
                       "ls " + dir + "/runs/mrpc_smoke/*/owner.lock > /dev/null 2>&1 && echo lock-left; "
                       "wait $owner; echo owner=$?";
  std::ofstream(dir + "/removed.sh") << script << "\n";
  auto r = run_command("bash " + dir + "/removed.sh");
  std::string second = runner::test::read_text(dir + "/second.out");
  INFO(r.out << "\n--- second:\n" << second << "\n--- owner:\n" << runner::test::read_text(dir + "/owner.out"));
  CHECK(has(r.out, "second=2"));
  CHECK(has(r.out, "owner=0"));
  CHECK(has(second, "this run is being trained by process"));
  CHECK(has(second, "whose lock file was removed or replaced"));
  CHECK_FALSE(has(r.out, "lock-left"));  // the refused resume takes away the lock file it made
  std::string run_dir = runner::test::only_run_dir(dir);
  CHECK(summary_status(run_dir) == "completed");
  auto ends = runner::test::events(run_dir, "end");
  REQUIRE(ends.size() == 1);
  CHECK(ends[0]["status"] == "completed");
  CHECK(runner::test::events(run_dir, "train").size() == 8);  // trained once: 32 steps logged every 4
}

TEST_CASE("after a kill -9 the loser of two resumes names the live winner, not the killed process", "[cli]") {
  std::string dir = runner::test::tmp_dir("owner-after-kill");
  auto killed = run_command("RUNNER_TEST_KILL_AT_STEP=10 " + runner_exe() + " " + runner::test::smoke_recipe() +
                            runner::test::isolated_run_sets(dir));
  REQUIRE(killed.exit_code != 0);  // SIGKILL at step 10
  std::string run_dir = runner::test::only_run_dir(dir);
  auto dead = nlohmann::json::parse(runner::test::read_text(run_dir + "/summary.json"));
  const long long dead_pid = dead["process"]["pid"];
  std::string resume = slow(100) + runner_exe() + " resume " + run_dir;
  std::ofstream(dir + "/two.sh") << resume << " > " << dir << "/a.out 2>&1 & a=$!\n"
                                 << resume << " > " << dir << "/b.out 2>&1 & b=$!\n"
                                 << "wait $a; echo a=$?; wait $b; echo b=$?\n";
  auto r = run_command("bash " + dir + "/two.sh");
  std::string a = runner::test::read_text(dir + "/a.out"), b = runner::test::read_text(dir + "/b.out");
  INFO(r.out << "\n--- a:\n" << a << "\n--- b:\n" << b);
  REQUIRE(has(r.out, "a=0") != has(r.out, "b=0"));
  const std::string loser = has(r.out, "a=0") ? b : a;
  auto done = nlohmann::json::parse(runner::test::read_text(run_dir + "/summary.json"));
  const long long winner_pid = done["segments"].back()["pid"];
  CHECK(has(loser, "this run is being trained by process " + std::to_string(winner_pid) + " "));
  CHECK_FALSE(has(loser, "process " + std::to_string(dead_pid) + " "));
}
