// `runner ls`: one line per run, newest first, a damaged run listed as
// unreadable rather than hiding the others, --json for scripts, exit 2 for a
// folder that does not exist.
#include "catch.h"

#include "report_fixtures.h"
#include "shared.h"

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <filesystem>

using runner::test::FakeRun;

TEST_CASE("runner ls lists runs newest first with status, steps, best metric, speed and wall time", "[ls]") {
  std::string dir = runner::test::tmp_dir("ls");
  FakeRun old_run, new_run, sweep_point;
  old_run.started = "2026-01-01T00:00:00Z";
  new_run.started = "2026-03-01T00:00:00Z", new_run.name = "other", new_run.status = "interrupted";
  sweep_point.started = "2026-02-01T00:00:00Z", sweep_point.name = "p0";
  runner::test::make_fake_run(dir + "/runs", "20260101T000000Z-aaaaaa", old_run);
  runner::test::make_fake_run(dir + "/runs", "20260301T000000Z-bbbbbb", new_run);
  runner::test::make_fake_run(dir + "/runs/tiny", "20260201T000000Z-cccccc", sweep_point);  // a sweep's point
  std::string broken = runner::test::make_fake_run(dir + "/runs", "20250101T000000Z-dddddd", FakeRun{});
  runner::test::write_text(broken + "/summary.json", "not json");

  auto r = runner::test::run_command(runner::test::runner_exe() + " ls " + dir + "/runs");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  size_t other = r.out.find("\nother "), p0 = r.out.find("\np0 "), demo = r.out.find("\ndemo ");
  REQUIRE(other != std::string::npos);
  CHECK((other < p0 && p0 < demo));
  CHECK(r.out.rfind("NAME", 0) == 0);
  for (const char* text : {"interrupted", "6/6", "eval.accuracy=0.7500", "42.5", "2 min 05 s", "unreadable"})
    CHECK(r.out.find(text) != std::string::npos);

  auto j = runner::test::run_command(runner::test::runner_exe() + " ls --json " + dir + "/runs");
  REQUIRE(j.exit_code == 0);
  nlohmann::json rows = nlohmann::json::parse(j.out);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0]["name"] == "other");
  CHECK(rows[0]["status"] == "interrupted");
  CHECK(rows[2]["best_value"] == 0.75);
  CHECK(rows[2]["best_step"] == 3);
  CHECK(rows[2]["samples_per_s"] == 42.5);
  CHECK(rows[2]["wall_seconds"] == 125.0);
  CHECK(rows[3]["status"] == "unreadable");
  CHECK(rows[3]["error"].get<std::string>().find("summary.json") != std::string::npos);
}

TEST_CASE("runner ls of a missing folder is exit 2 naming it; an empty one says so", "[ls]") {
  std::string dir = runner::test::tmp_dir("ls-missing");
  auto missing = runner::test::run_command(runner::test::runner_exe() + " ls " + dir + "/nope");
  CHECK(missing.exit_code == 2);
  CHECK(missing.out.find(dir + "/nope: no such directory") != std::string::npos);
  auto empty = runner::test::run_command(runner::test::runner_exe() + " ls " + dir);
  CHECK(empty.exit_code == 0);
  CHECK(empty.out.find("no runs under") != std::string::npos);
}

TEST_CASE("a run whose records hold fields of the wrong type is listed and reported, not an error", "[ls]") {
  // A hand-edited or damaged record reads as incomplete: the field is left out, never a library message.
  std::string dir = runner::test::tmp_dir("ls-types");
  std::string run = runner::test::make_fake_run(dir + "/runs", "20260102T030405Z-aaaaaa", FakeRun{});
  runner::test::write_text(run + "/summary.json",
                           R"({"status": 5, "global_step": "six", "total_steps": [], "best": {"metric": 3, "value": "x"}})");
  runner::test::write_text(run + "/env.json", R"({"started_utc": 20260102, "recipe": {"overrides": "x"}})");
  runner::test::write_text(run + "/metrics.jsonl",
                           R"({"event": "eval", "step": "3", "is_best": "yes", "accuracy": 0.7})" "\n"
                           R"({"event": "train", "step": 4.5, "loss": "0.6"})" "\n");
  std::string exe = runner::test::runner_exe();
  auto ls = runner::test::run_command(exe + " ls --json " + dir + "/runs");
  INFO(ls.out);
  REQUIRE(ls.exit_code == 0);
  CHECK(ls.out.find("json.exception") == std::string::npos);
  nlohmann::json rows = nlohmann::json::parse(ls.out);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["name"] == "demo");
  // A status that is not a string says nothing about the run: unknown, never
  // running forever (without summary.json at all a run is unfinished).
  CHECK(rows[0]["status"] == "unknown");
  CHECK(rows[0]["started_utc"] == "");
  CHECK(rows[0]["best_value"].is_null());

  auto report = runner::test::run_command(exe + " report " + run + " --out " + dir + "/r.html");
  INFO(report.out);
  CHECK(report.exit_code == 0);
  CHECK(report.out.find("json.exception") == std::string::npos);
}

TEST_CASE("runner ls and report messages show a record's control characters escaped", "[ls]") {
  // A run name holding ESC sequences (set the window title,
  // clear the screen) reached the terminal byte for byte.
  std::string dir = runner::test::tmp_dir("ls-escapes");
  FakeRun run;
  run.name = "evil\x1b]0;owned\x07\x1b[2J\xC2\x9B" "31m";
  run.status = "done\x1b[8m";
  std::string run_dir = runner::test::make_fake_run(dir + "/runs", "20260102T030405Z-aaaaaa", run);
  std::string exe = runner::test::runner_exe();
  auto ls = runner::test::run_command(exe + " ls " + dir + "/runs");
  INFO(ls.out);
  REQUIRE(ls.exit_code == 0);
  CHECK(ls.out.find('\x1b') == std::string::npos);
  CHECK(ls.out.find('\x07') == std::string::npos);
  CHECK(ls.out.find("\xC2\x9B") == std::string::npos);
  CHECK(ls.out.find("evil\\x1b]0;owned\\x07\\x1b[2J\\u009b31m") != std::string::npos);
  CHECK(ls.out.find("done\\x1b[8m") != std::string::npos);
  // --json escapes them as JSON does, and reads back to the same bytes.
  auto json = runner::test::run_command(exe + " ls --json " + dir + "/runs");
  REQUIRE(json.exit_code == 0);
  CHECK(json.out.find('\x1b') == std::string::npos);
  CHECK(nlohmann::json::parse(json.out)[0]["name"] == run.name);
  // An error about a damaged record names its path, escaped too.
  runner::test::write_text(run_dir + "/summary.json", "{");
  auto report = runner::test::run_command(exe + " report '" + run_dir + "' --out " + dir + "/r.html");
  INFO(report.out);
  CHECK(report.exit_code == 2);
  CHECK(report.out.find('\x1b') == std::string::npos);
  CHECK(report.out.find("evil\\x1b]0;owned") != std::string::npos);
}

TEST_CASE("runner ls of a symbolic link loop, a FIFO or a file is exit 2 naming the argument", "[ls]") {
  std::string dir = runner::test::tmp_dir("ls-not-a-folder");
  std::filesystem::create_symlink("loop", dir + "/loop");
  REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0600) == 0);
  runner::test::write_text(dir + "/file", "x");
  // `timeout`: a FIFO opened to read would wait for a writer.
  auto ls = [](const std::string& args) {
    return runner::test::run_command("timeout 20 " + runner::test::runner_exe() + " ls " + args);
  };
  auto loop = ls(dir + "/loop");
  INFO(loop.out);
  CHECK(loop.exit_code == 2);
  CHECK(loop.out.find("error: " + dir + "/loop: cannot be read: Too many levels of symbolic links") != std::string::npos);
  CHECK(loop.out.find("filesystem error") == std::string::npos);
  for (const std::string& args : {dir + "/fifo", "--runs " + dir + "/fifo"}) {
    auto fifo = ls(args);
    INFO(fifo.out);
    CHECK(fifo.exit_code == 2);  // named as given, not the default runs/
    CHECK(fifo.out.find("error: " + dir + "/fifo: expected a folder of runs, found a FIFO") != std::string::npos);
  }
  auto loop_flag = ls("--runs " + dir + "/loop");
  CHECK(loop_flag.exit_code == 2);
  CHECK(loop_flag.out.find(dir + "/loop: cannot be read") != std::string::npos);
  auto file = ls(dir + "/file");
  CHECK(file.exit_code == 2);
  CHECK(file.out.find(dir + "/file: expected a folder of runs, found a regular file") != std::string::npos);
}
