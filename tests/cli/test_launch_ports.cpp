// `runner launch` on one machine never collides. Without
// --master-port each launch takes a free port, so two at once both finish; a
// port that is taken is refused before any worker starts, naming the flag, and
// no glog or c10 text reaches the user.
#include "catch.h"

#include "shared.h"

#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

using namespace runner;
using test::run_command;
using test::runner_exe;

namespace {

std::string launch_line(const std::string& dir, const std::string& name, const std::string& extra) {
  return runner_exe() + " launch --nproc-per-node 2 " + extra + " " + test::source_dir() +
         "/recipes/smoke/mrpc_smoke.toml --set run.output_dir=" + dir + "/runs --set run.name=" + name +
         " --set train.max_steps=2 --set run.threads=1 --set run.loggers=jsonl";
}

}  // namespace

TEST_CASE("a --master-port that is taken is refused with the flag as the fix", "[cli]") {
  int taken = 0;
  int fd = test::bound_loopback_socket(taken);
  REQUIRE(fd >= 0);
  REQUIRE(listen(fd, 1) == 0);
  std::string port = std::to_string(taken);
  std::string dir = test::tmp_dir("launch-taken-port");
  auto r = run_command(launch_line(dir, "taken", "--master-port " + port));
  close(fd);
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("error: --master-port " + port + ": port " + port + " of 127.0.0.1 is in use"));
  CHECK_THAT(r.out, Catch::Contains("hint: pass another --master-port"));
  for (const char* raw : {"socket.cpp", "errno", "c10::", "frame #"}) CHECK(r.out.find(raw) == std::string::npos);
  CHECK(r.out.find("[rank") == std::string::npos);  // no worker was started
}

TEST_CASE("two launches at once on one machine both finish", "[cli]") {
  std::string dir = test::tmp_dir("launch-two-at-once");
  auto r = run_command("( " + launch_line(dir, "first", "") + " > " + dir + "/first.log 2>&1; echo $? > " + dir +
                       "/first.rc ) & ( " + launch_line(dir, "second", "") + " > " + dir + "/second.log 2>&1; echo $? > " +
                       dir + "/second.rc ) & wait");
  for (const char* name : {"first", "second"}) {
    std::string log = test::read_text(dir + "/" + name + ".log");
    INFO(name << "\n" << log);
    CHECK(test::read_text(dir + "/" + name + ".rc") == "0\n");
    CHECK(log.find("Address already in use") == std::string::npos);
  }
}
