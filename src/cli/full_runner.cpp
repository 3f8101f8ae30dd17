#include "cli/full_runner.h"

#include "cli/commands.h"
#include "cli/recipe_input.h"
#include "util/output_check.h"
#include "util/paths.h"

#include <fmt/format.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "runner_build_config.h"

namespace runner {
namespace {

// The input the front consumed, put back as the full runner's standard input: a
// memory file holding it, read from its start. Returns errno, 0 on success.
int replay_standard_input() {
  const std::string* taken = standard_input_taken();
  if (!taken) return 0;
  int fd = memfd_create("runner-stdin", 0);
  if (fd < 0) return errno;
  for (size_t done = 0; done < taken->size();) {
    ssize_t n = write(fd, taken->data() + done, taken->size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    done += static_cast<size_t>(n);
  }
  if (lseek(fd, 0, SEEK_SET) != 0 || dup2(fd, STDIN_FILENO) < 0) return errno;
  close(fd);
  return 0;
}

}  // namespace

std::string full_runner_path() {
  return (std::filesystem::path(executable_dir()) / RUNNER_FULL_NAME).string();
}

int hand_to_full_runner(const std::vector<std::string>& argv) {
  const std::string path = full_runner_path();
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  int err = replay_standard_input();
  pass_on_closed_standard_output();
  if (err == 0) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(path.c_str(), args.data());
    err = errno;
  }
  std::cerr << fmt::format("error: this command needs LibTorch, which runs in {}: {}\n  hint: {}\n", path,
                           std::strerror(err),
                           err == ENOENT ? "build it beside the runner (ninja -C build runner-torch), or install "
                                           "both (meson install puts runner-torch beside runner)"
                                         : "check that it is an executable file");
  return kExitFailure;
}

}  // namespace runner
