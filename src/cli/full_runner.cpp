#include "cli/full_runner.h"

#include "cli/commands.h"
#include "cli/recipe_input.h"
#include "util/output_check.h"
#include "util/paths.h"
#include "util/torch_linked.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
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

// Set by the front for the program it hands a command to, and cleared by the
// full runner as it starts: a front that finds it was started by a front.
constexpr const char* kHandedOver = "RUNNER_HANDED_OVER_BY_FRONT";

// Why the front must not hand over to `path`: it is this very file (a link to
// the front, or the same file by another name). "" when it is another file.
std::string same_file_problem(const std::string& path) {
  struct stat own {}, target {};
  if (::stat("/proc/self/exe", &own) != 0 || ::stat(path.c_str(), &target) != 0) return "";
  if (own.st_dev != target.st_dev || own.st_ino != target.st_ino) return "";
  return "it is this front itself (a link to it, or the same file)";
}

int refuse_hand_over(const std::string& path, const std::string& why) {
  std::cerr << fmt::format("error: {}: this command needs LibTorch, which the full runner links, but {}\n"
                           "  hint: put the runner-torch that the build makes (ninja -C build runner-torch) "
                           "beside the runner, or install both (meson install)\n",
                           terminal_safe(path), why);
  return kExitBadInput;
}

}  // namespace

std::string full_runner_path() {
  const std::string own = executable_dir();
  return own.empty() ? std::string() : (std::filesystem::path(own) / RUNNER_FULL_NAME).string();
}

int refuse_front_in_full_runners_place() {
  if (links_torch()) {
    ::unsetenv(kHandedOver);  // the processes a full runner starts (sweep points, workers) start afresh
    return kExitOk;
  }
  if (!std::getenv(kHandedOver)) return kExitOk;
  return refuse_hand_over(full_runner_path().empty() ? RUNNER_FULL_NAME : full_runner_path(),
                          "the program there is a front too (a copy of runner, not the full runner), "
                          "which would hand the command on forever");
}

int hand_to_full_runner(const std::vector<std::string>& argv) {
  const std::string path = full_runner_path();
  if (path.empty())
    return refuse_hand_over(RUNNER_FULL_NAME, "this runner cannot tell its own folder, where it looks for it "
                                             "(/proc/self/exe cannot be read: is /proc mounted?); it never "
                                             "looks in the working folder");
  if (std::string why = same_file_problem(path); !why.empty()) return refuse_hand_over(path, why);
  ::setenv(kHandedOver, "1", 1);
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
