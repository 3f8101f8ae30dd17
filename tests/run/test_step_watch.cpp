// The kill-at-step test hook: a process told to kill itself at step N does so
// only once the checkpoint saved last is on disk, so that a kill-and-resume test
// knows the step it resumes from however slow the background write is; with the
// pause hook holding that write, it kills during it.
#include "run/test_hooks.h"

#include "shared.h"

#include "catch.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

// A child process whose StepWatch sees the checkpoint of step 4 saved to
// `path`, then steps 5 and 6 end; the hooks come from `env` ("NAME=VALUE" pairs).
pid_t child_reaching_step_6(const std::string& path, const std::vector<std::string>& env) {
  pid_t child = fork();
  if (child != 0) return child;
  for (const auto& pair : env) putenv(strdup(pair.c_str()));
  runner::StepWatch watch;
  watch.log({{"event", "checkpoint"}, {"step", 4}, {"path", path}});
  for (long long step : {5, 6}) watch.log({{"event", "progress"}, {"step", step}});
  _exit(0);
}

// The child's wait status once it ends, or -1 when it is still running after `ms`.
int status_within(pid_t child, int ms) {
  for (int waited = 0; waited <= ms; waited += 10) {
    int status = 0;
    if (waitpid(child, &status, WNOHANG) == child) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

bool killed(int status) { return status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL; }

}  // namespace

TEST_CASE("a kill at step N waits for the checkpoint saved before it to be renamed into place", "[run]") {
  const std::string path = runner::test::tmp_dir("step_watch_wait") + "/step-00000004";
  pid_t child = child_reaching_step_6(path, {"RUNNER_TEST_KILL_AT_STEP=6"});
  // Without the checkpoint's directory the child stays alive; a writer's rename
  // ends the wait, and the kill follows.
  const int before = status_within(child, 500);
  CHECK(before == -1);
  fs::create_directories(path);
  const int after = before == -1 ? status_within(child, 10000) : before;
  if (after == -1) kill(child, SIGKILL), waitpid(child, nullptr, 0);
  CHECK(killed(after));
}

TEST_CASE("a kill at step N comes during the checkpoint write the pause hook holds", "[run]") {
  const std::string path = runner::test::tmp_dir("step_watch_pause") + "/step-00000004";
  pid_t child = child_reaching_step_6(
      path, {"RUNNER_TEST_KILL_AT_STEP=6", "RUNNER_TEST_PAUSE_IN_CHECKPOINT=4:model.safetensors:600000"});
  const int status = status_within(child, 10000);
  if (status == -1) kill(child, SIGKILL), waitpid(child, nullptr, 0);
  CHECK(killed(status));
  CHECK_FALSE(fs::exists(path));
}
