// Where tests find ../shared (GLUE data, the bert-base-uncased tokenizer, golden
// files) and the project's own test inputs. RUNNER_SHARED overrides the default.
#pragma once

#include <string>

namespace runner::test {

std::string shared_dir();   // $RUNNER_SHARED or <source root>/../shared
std::string source_dir();   // the project root
std::string build_dir();    // where the runner executable and plugins were built
std::string runner_exe();   // build_dir()/runner: the front, which hands LibTorch's commands to
std::string full_runner_exe();  // build_dir()/runner-torch, the full runner
std::string smoke_recipe(); // recipes/smoke/mrpc_smoke.toml: seconds long, bert-tiny on 256 MRPC pairs
// A fresh, empty directory under the build dir. The test executable removes
// every one it made when it ends with no test failed, unless RUNNER_KEEP_TEST_TMP
// is set (tests/support/catch_main.cpp): the suite's runs take gigabytes.
std::string tmp_dir(const std::string& name);
void remove_tmp_dirs();
std::string read_text(const std::string& path);  // a whole file, "" when it cannot be read

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout and stderr together
};
// Runs a shell command line and captures what it prints.
CommandResult run_command(const std::string& command_line);

// A TCP socket bound to 127.0.0.1 on a port the kernel chose (written to `port`);
// -1 when that failed. Close it to have a port that nothing listens on.
int bound_loopback_socket(int& port);

}  // namespace runner::test
