// One folder that cannot be read never hides the rest. `ls`
// lists every run it can read and marks the folder it cannot as unreadable;
// `ls /` walks past whatever the system's folders hold. The tests run as root,
// whom a chmod 000 does not stop: `runner ls` is run as the unprivileged user
// 65534 (nobody) through setpriv, for whom the chmod-000 folder is unreadable.
#include "catch.h"

#include "report_fixtures.h"
#include "shared.h"

#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

namespace {

// `runner ARGS` as a user that permissions apply to.
std::string unprivileged(const std::string& args) {
  std::string as = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  return as + runner::test::runner_exe() + " " + args;
}

}  // namespace

TEST_CASE("ls lists the runs it can read and marks a folder it cannot", "[ls]") {
  std::string dir = runner::test::tmp_dir("ls-unreadable");
  ::chmod(dir.c_str(), 0755);
  std::string runs = dir + "/runs";
  runner::test::FakeRun readable;
  readable.name = "readable";
  runner::test::make_fake_run(runs, "20260101T000000Z-aaaaaa", readable);
  runner::test::FakeRun hidden;
  hidden.name = "hidden";
  runner::test::make_fake_run(runs, "20260101T000000Z-bbbbbb", hidden);
  for (const auto& p : std::filesystem::recursive_directory_iterator(dir))
    ::chmod(p.path().c_str(), p.is_directory() ? 0755 : 0644);
  REQUIRE(::chmod((runs + "/hidden").c_str(), 0) == 0);

  auto table = runner::test::run_command(unprivileged("ls " + runs));
  INFO(table.out);
  CHECK(table.exit_code == 0);
  CHECK(table.out.find("filesystem error") == std::string::npos);
  CHECK(table.out.find("\nreadable ") != std::string::npos);
  CHECK(table.out.find("unreadable") != std::string::npos);
  CHECK(table.out.find(runs + "/hidden") != std::string::npos);

  auto json = runner::test::run_command(unprivileged("ls --json " + runs));
  INFO(json.out);
  REQUIRE(json.exit_code == 0);
  nlohmann::json rows = nlohmann::json::parse(json.out);
  REQUIRE(rows.size() == 2);
  std::string error;
  for (const auto& row : rows)
    if (row["status"] == "unreadable") error = row["error"];
  CHECK(error.find("Permission denied") != std::string::npos);
  ::chmod((runs + "/hidden").c_str(), 0755);  // so that the next run's tmp_dir can remove it
}

TEST_CASE("ls / lists what it can and ends well", "[ls]") {
  auto r = runner::test::run_command(unprivileged("ls / > /dev/null"));
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("filesystem error") == std::string::npos);
}

TEST_CASE("ls lists a run once through a symbolic link back up the tree or a second name", "[ls]") {
  std::string runs = runner::test::tmp_dir("ls-loop") + "/runs";
  runner::test::FakeRun run;
  run.name = "once";
  runner::test::make_fake_run(runs, "20260101T000000Z-aaaaaa", run);
  std::filesystem::create_directory_symlink(".", runs + "/loop");            // runs/loop/loop/... is runs
  std::filesystem::create_directory_symlink(runs + "/once", runs + "/alias");  // the same folder again
  auto json = runner::test::run_command(runner::test::runner_exe() + " ls --json " + runs);
  INFO(json.out);
  REQUIRE(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out).size() == 1);
}
