#include "shared.h"

#include "runner_build_config.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace runner::test {

std::string shared_dir() {
  if (const char* env = std::getenv("RUNNER_SHARED"); env && *env) return env;
  return std::string(RUNNER_SOURCE_ROOT) + "/../shared";
}

std::string source_dir() { return RUNNER_SOURCE_ROOT; }

std::string build_dir() { return RUNNER_BUILD_ROOT; }

std::string smoke_recipe() { return source_dir() + "/recipes/smoke/mrpc_smoke.toml"; }

std::string runner_exe() { return build_dir() + "/runner"; }

std::string full_runner_exe() { return build_dir() + "/" + RUNNER_FULL_NAME; }

namespace {
std::mutex made_mutex;
std::set<std::string> made;  // the directories tmp_dir made in this process
}  // namespace

std::string tmp_dir(const std::string& name) {
  namespace fs = std::filesystem;
  fs::path p = fs::path(build_dir()) / "test-tmp" / name;
  fs::remove_all(p);
  fs::create_directories(p);
  std::lock_guard<std::mutex> lock(made_mutex);
  made.insert(p.string());
  return p.string();
}

void remove_tmp_dirs() {
  std::lock_guard<std::mutex> lock(made_mutex);
  std::error_code ec;
  for (const std::string& dir : made) std::filesystem::remove_all(dir, ec);  // what cannot go stays
  made.clear();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CommandResult run_command(const std::string& command_line) {
  CommandResult r;
  std::string cmd = command_line + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

int bound_loopback_socket(int& port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    close(fd);
    return -1;
  }
  port = ntohs(a.sin_port);
  return fd;
}

}  // namespace runner::test
