// Two "machines" on one: two `runner launch --nnodes 2 --node-rank R
// --master-addr 127.0.0.1 --nproc-per-node 1` processes, started as two nodes
// would start them, train together. Rank r runs the same computation as rank r
// of a one-node `runner launch --nproc-per-node 2` (the same shards, the same
// two-rank Gloo all-reduce), so every logged number must be equal, bit for bit.
// Then one node's launcher is SIGKILLed: the other stops within 60 s with an
// error naming the lost rank.
#include "run/run_dir.h"
#include "run/run_search.h"

#include "run_files.h"
#include "shared.h"
#include "toy_ranks.h"

#include "catch.h"
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <optional>
#include <thread>

using runner::test::events;
using runner::test::free_port;
using runner::test::only_run_dir;
using runner::test::run_command;

namespace {

using Clock = std::chrono::steady_clock;

std::string recipe() { return runner::test::source_dir() + "/recipes/smoke/mrpc_smoke.toml"; }

// 64 MRPC pairs, 2 epochs of 4 steps (8 per rank per step), a loss every step, one thread.
std::string sets(const std::string& dir) {
  return " --set run.output_dir=" + dir + "/runs --set run.threads=1 --set data.max_train_examples=64" +
         " --set data.max_eval_examples=64 --set data.eval_batch_size=32 --set data.train_batch_size=8" +
         " --set train.epochs=2 --set train.log_every=1";
}

std::string node_command(int node_rank, int port, const std::string& args) {
  return runner::test::runner_exe() + " launch --nnodes 2 --node-rank " + std::to_string(node_rank) +
         " --master-addr 127.0.0.1 --master-port " + std::to_string(port) + " --nproc-per-node 1 " + args;
}

// Starts `command_line` in its own process group (so that the test can clean up
// whatever it left), its output in `log`.
pid_t start_command(const std::string& command_line, const std::string& log) {
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    execl("/bin/sh", "sh", "-c", ("exec " + command_line).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// The exit status of `pid` once it ends, or nullopt after `limit`.
std::optional<int> wait_for_exit(pid_t pid, std::chrono::seconds limit) {
  auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return std::nullopt;
}

bool wait_for_steps(const std::string& dir, size_t steps) {
  auto deadline = Clock::now() + std::chrono::minutes(3);
  while (Clock::now() < deadline) {
    auto dirs = runner::list_run_dirs(dir + "/runs", "mrpc_smoke");
    if (dirs.size() == 1 && events(dirs[0], "train").size() >= steps) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

// Train and eval events without their timings.
std::vector<nlohmann::json> reproducible_events(const std::string& run_dir) {
  std::vector<nlohmann::json> out;
  for (const char* kind : {"train", "eval"})
    for (auto e : events(run_dir, kind)) {
      for (const char* timing : {"samples_per_s", "tokens_per_s", "wall_time", "elapsed_s"}) e.erase(timing);
      out.push_back(e);
    }
  return out;
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

TEST_CASE("two `runner launch` nodes of 1 process train like one node of 2", "[parallel][nodes]") {
  std::string root = runner::test::tmp_dir("dist_two_nodes");
  auto one = run_command(runner::test::runner_exe() + " launch --nproc-per-node 2 --master-port " +
                         std::to_string(free_port()) + " " + recipe() + sets(root + "/one_node"));
  INFO(one.out);
  REQUIRE(one.exit_code == 0);

  const int port = free_port();
  const std::string args = recipe() + sets(root + "/two_nodes");
  auto t0 = Clock::now();
  pid_t node0 = start_command(node_command(0, port, args), root + "/node0.log");
  pid_t node1 = start_command(node_command(1, port, args), root + "/node1.log");
  auto s0 = wait_for_exit(node0, std::chrono::minutes(5)), s1 = wait_for_exit(node1, std::chrono::minutes(1));
  for (pid_t p : {node0, node1}) kill(-p, SIGKILL);
  std::cerr << "two nodes: trained in " << seconds_since(t0) << " s\n";
  const std::string log0 = runner::test::read_text(root + "/node0.log"),
                    log1 = runner::test::read_text(root + "/node1.log");
  INFO("node 0:\n" << log0 << "\nnode 1:\n" << log1);
  REQUIRE(s0);
  REQUIRE(s1);
  CHECK(*s0 == 0);
  CHECK(*s1 == 0);
  CHECK_THAT(log0, Catch::Contains("[rank 0] "));
  CHECK_THAT(log0, Catch::Contains("data parallel: 2 ranks"));  // rank 1 prints nothing when all is well
  std::string run = only_run_dir(root + "/two_nodes");  // rank 0 alone made one
  nlohmann::json resolved = runner::read_json_file(run + "/recipe.resolved.json");
  CHECK(resolved["topology"]["nodes"] == 2);
  CHECK(resolved["topology"]["processes_per_node"] == 1);
  auto expected = reproducible_events(only_run_dir(root + "/one_node"));
  auto got = reproducible_events(run);
  CHECK(expected.size() == 8 + 2);  // 8 steps, an evaluation after each epoch
  REQUIRE(got.size() == expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("event " << i);
    CHECK(got[i] == expected[i]);
  }
}

TEST_CASE("killing one node's launcher stops the other within 60 s, naming the lost rank",
          "[parallel][nodes]") {
  const int killed = GENERATE(1, 0);  // the worker's node, then the node hosting the rendezvous
  std::string root = runner::test::tmp_dir("dist_lost_node_" + std::to_string(killed));
  const int port = free_port();
  const std::string args = recipe() + sets(root) + " --set train.max_steps=100000";
  pid_t nodes[2] = {start_command(node_command(0, port, args), root + "/node0.log"),
                    start_command(node_command(1, port, args), root + "/node1.log")};
  const bool started = wait_for_steps(root, 2);
  const int survivor = 1 - killed;
  kill(nodes[killed], SIGKILL);  // the launcher alone, as a lost machine would
  auto t0 = Clock::now();
  auto status = started ? wait_for_exit(nodes[survivor], std::chrono::seconds(90)) : std::nullopt;
  const double detected = seconds_since(t0);
  for (pid_t p : nodes) kill(-p, SIGKILL);  // anything left behind, the killed node's workers included
  for (pid_t p : nodes) waitpid(p, nullptr, 0);
  std::cerr << "two nodes: node " << survivor << " stopped " << detected << " s after node " << killed
            << "'s launcher was killed\n";
  const std::string log = runner::test::read_text(root + "/node" + std::to_string(survivor) + ".log");
  INFO("node " << survivor << ":\n" << log);
  REQUIRE(started);
  REQUIRE(status);
  CHECK(WIFEXITED(*status));
  CHECK(WEXITSTATUS(*status) != 0);
  CHECK(detected < 60.0);
  CHECK_THAT(log, Catch::Contains("lost rank " + std::to_string(killed)));
  CHECK_THAT(log, Catch::Contains("runner launch: rank " + std::to_string(survivor) + " (pid"));
}
