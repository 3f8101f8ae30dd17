// Data parallelism end to end through the real `runner` executable, on Gloo
// over loopback: 2 ranks x batch 8 must train like 1 rank x batch 16 (the
// DistributedSampler shards interleave, so each optimizer step sees the same 16
// examples, and the averaged gradient of two equal halves is the gradient of
// their union); dropout is off so that the two are the same computation up to
// float summation order. Launched three ways: bare torchrun variables, SLURM
// variables, and `runner launch`. Then a rank is SIGKILLed mid-run.
#include "run/run_dir.h"
#include "model/model_factory.h"
#include "run/run_search.h"
#include "train/checkpoint_io.h"
#include "train/training_state.h"

#include "background_command.h"
#include "dist_runs.h"
#include "equivalence.h"
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
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

using runner::test::free_port;
using runner::test::events;
using runner::test::only_run_dir;
using runner::test::run_command;

namespace {

std::string recipe() { return runner::test::dist_recipe(); }

std::string sets(const std::string& dir, int per_rank_batch, int grad_accum) {
  return runner::test::dist_sets(dir, per_rank_batch, grad_accum);
}

std::string exe() { return runner::test::runner_exe(); }

// Two workers started by hand with per-rank variables, as srun or torchrun would.
runner::test::CommandResult two_workers(const std::string& dir, const std::string& rank0_env,
                                        const std::string& rank1_env, const std::string& args) {
  std::string line = "(" + rank0_env + " " + exe() + " run " + args + " > " + dir + "/r0.log 2>&1; echo $? > " +
                     dir + "/r0.rc) & (" + rank1_env + " " + exe() + " run " + args + " > " + dir +
                     "/r1.log 2>&1; echo $? > " + dir + "/r1.rc) & wait; cat " + dir + "/r0.log " + dir +
                     "/r1.log; exit $(( $(cat " + dir + "/r0.rc) + $(cat " + dir + "/r1.rc) ))";
  return run_command(line);
}

std::string torchrun_env(int rank, int port) {
  return "RANK=" + std::to_string(rank) + " WORLD_SIZE=2 LOCAL_RANK=" + std::to_string(rank) +
         " LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(port);
}

std::string slurm_env(int rank, int port) {
  return "SLURM_PROCID=" + std::to_string(rank) + " SLURM_NTASKS=2 SLURM_LOCALID=" + std::to_string(rank) +
         " SLURM_NODELIST=localhost MASTER_PORT=" + std::to_string(port);
}

nlohmann::json summary(const std::string& run_dir) { return runner::test::run_summary(run_dir); }

// A run with its gradients written to dir/gradients (equivalence.h's trace).
std::string traced(const std::string& dir) {
  std::filesystem::create_directories(dir + "/gradients");
  return "RUNNER_TEST_GRADIENT_DIR=" + dir + "/gradients ";
}

runner::test::RunTrace trace_of(const std::string& run_dir, const std::string& dir) {
  runner::test::RunTrace t;
  t.losses = runner::test::step_losses(run_dir);
  t.gradients = runner::test::step_gradients(dir + "/gradients");
  for (const auto& p : runner::load_model_folder(run_dir + "/final").model->named_parameters())
    t.weights[p.key()] = p.value().detach().clone();
  return t;
}

// The single process at 16 examples a micro-batch, and its accumulation variant
// at 8 (equivalence.h): what a data-parallel run of `grad_accum` windows is held to.
struct Baseline {
  std::string single_dir;
  runner::test::RunTrace single, reference;
  int grad_accum = 1;
};

std::string single_run(const std::string& dir, int batch, int grad_accum) {
  auto r = run_command(traced(dir) + exe() + " run " + recipe() + sets(dir, batch, grad_accum));
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  return only_run_dir(dir);
}

Baseline baseline(const std::string& root, int grad_accum) {
  Baseline b;
  b.grad_accum = grad_accum;
  b.single_dir = single_run(root + "/single", 16, grad_accum);
  b.single = trace_of(b.single_dir, root + "/single");
  b.reference = trace_of(single_run(root + "/reference", 8, 2 * grad_accum), root + "/reference");
  return b;
}

// Losses, gradients and weights within equivalence.h's bound; eval metrics
// (counts of examples on either side of a threshold) exactly equal.
void require_same_training(const Baseline& base, const std::string& multi_run, const std::string& multi_dir) {
  const std::string& single_dir = base.single_dir;
  runner::test::EquivalenceCheck check;
  check.compare_runs(base.single, base.reference, trace_of(multi_run, multi_dir), 16 * base.grad_accum);
  INFO(runner::test::joined(check.violations()));
  CHECK(check.violations().empty());
  auto a = events(single_dir, "train"), b = events(multi_run, "train");
  REQUIRE(a.size() == b.size());
  REQUIRE(a.size() >= 2);
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i]["step"] == b[i]["step"]);
    CHECK(a[i]["effective_batch"] == b[i]["effective_batch"]);
  }
  auto ea = events(single_dir, "eval"), eb = events(multi_run, "eval");
  REQUIRE(ea.size() == eb.size());
  REQUIRE(!ea.empty());
  for (size_t i = 0; i < ea.size(); ++i) {
    CHECK(ea[i]["accuracy"] == eb[i]["accuracy"]);
    CHECK(ea[i]["f1"] == eb[i]["f1"]);
    CHECK(ea[i]["examples"] == eb[i]["examples"]);  // no sampler padding counted
  }
  CHECK(summary(multi_run)["status"] == "completed");
  CHECK(summary(multi_run)["samples_seen"] == summary(single_dir)["samples_seen"]);  // every rank's
}

}  // namespace

TEST_CASE("2 ranks x batch 8 train like 1 rank x batch 16 (torchrun variables, SLURM variables, "
          "sharded optimizer)", "[parallel]") {
  std::string root = runner::test::tmp_dir("dist_equivalence");
  const Baseline base = baseline(root, 1);

  SECTION("torchrun-style environment variables") {
    std::string dir = root + "/torchrun";
    int port = free_port();
    auto r = two_workers(root, traced(dir) + torchrun_env(0, port), torchrun_env(1, port), recipe() + sets(dir, 8, 1));
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    std::string run = only_run_dir(dir);
    require_same_training(base, run, dir);
    CHECK(std::ifstream(run + "/env.json").good());
    CHECK(std::ifstream(run + "/final/config.json").good());
  }
  SECTION("SLURM variables, with topology.shard_optimizer (ZeRO-1)") {
    std::string dir = root + "/slurm_zero";
    int port = free_port();
    auto r = two_workers(root, traced(dir) + slurm_env(0, port), slurm_env(1, port),
                         recipe() + sets(dir, 8, 1) + " --set topology.shard_optimizer=true");
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("(slurm)"));
    require_same_training(base, only_run_dir(dir), dir);
  }
}

TEST_CASE("`runner launch` with gradient accumulation 2 trains like one process, with recomputed layers too",
          "[parallel]") {
  std::string root = runner::test::tmp_dir("dist_launch_accum");
  const Baseline base = baseline(root, 2);
  std::string dir = root + "/launch";
  auto r = run_command(traced(dir) + exe() + " launch --nproc-per-node 2 --master-port " + std::to_string(free_port()) + " " +
                       recipe() + sets(dir, 8, 2));
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("[rank 0] "));
  // --nproc-per-node overrides the recipe's topology (1 x 1): no mismatch
  // warning, and the resolved recipe records the 2 processes that ran.
  CHECK_THAT(r.out, !Catch::Contains("topology plans"));
  nlohmann::json resolved = runner::read_json_file(only_run_dir(dir) + "/recipe.resolved.json");
  CHECK(resolved["topology"]["processes_per_node"] == 2);
  CHECK(resolved["topology"]["nodes"] == 1);
  require_same_training(base, only_run_dir(dir), dir);

  // Recomputed layers under data parallelism: the gradient exchange's hooks fire
  // inside each layer's nested backward, and must still see every gradient once.
  std::string recomputed = root + "/launch_recompute";
  r = run_command(traced(recomputed) + exe() + " launch --nproc-per-node 2 --master-port " +
                  std::to_string(free_port()) + " " + recipe() + sets(recomputed, 8, 2) +
                  " --set model.gradient_checkpointing=true");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  require_same_training(base, only_run_dir(recomputed), recomputed);
}

TEST_CASE("a killed rank stops the others with its number; the run resumes to the end", "[parallel]") {
  std::string root = runner::test::tmp_dir("dist_kill");
  std::string dir = root + "/kill";
  std::string args = recipe() + sets(dir, 8, 1) + " --set train.checkpoint_every=2";
  auto t0 = std::chrono::steady_clock::now();
  auto killed = run_command("RUNNER_TEST_KILL_AT_STEP=5 RUNNER_TEST_KILL_RANK=1 " + exe() +
                            " launch --nproc-per-node 2 --master-port " + std::to_string(free_port()) + " " + args);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(killed.out);
  CHECK(killed.exit_code != 0);
  CHECK_THAT(killed.out, Catch::Contains("rank 1 (pid"));
  CHECK_THAT(killed.out, Catch::Contains("[rank 0] ") && Catch::Contains("lost rank 1"));
  CHECK(seconds < 60.0);
  std::string run = only_run_dir(dir);
  CHECK(summary(run)["status"] == "failed");

  // One process with the same batch cannot continue a two-process run exactly: refused, saying why ...
  auto one = run_command(exe() + " resume " + run);
  INFO(one.out);
  CHECK(one.exit_code == 2);
  CHECK_THAT(one.out, Catch::Contains("written by 2 process(es)"));
  // ... unless it keeps the global batch of 2 x 8 (tests/parallel/test_elastic.cpp), which the hint says how.
  CHECK_THAT(one.out, Catch::Contains("set train.grad_accum = 2"));

  auto resumed = run_command(exe() + " launch --nproc-per-node 2 --master-port " + std::to_string(free_port()) +
                             " " + args + " --resume auto");
  INFO(resumed.out);
  REQUIRE(resumed.exit_code == 0);
  CHECK(summary(run)["status"] == "completed");
  CHECK(summary(run)["global_step"] == 8);
  CHECK(summary(run)["samples_seen"] == 128);  // 64 pairs x 2 epochs, before and after the resume
  CHECK(summary(run)["resumed_from"].get<std::string>().find("step-") != std::string::npos);
}

using runner::test::start_command;

namespace {

// Waits until rank 0 has logged `steps` train events (the run is under way).
bool wait_for_steps(const std::string& dir, size_t steps) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  while (std::chrono::steady_clock::now() < deadline) {
    auto dirs = runner::list_run_dirs(dir + "/runs", "mrpc_smoke");
    if (dirs.size() == 1 && events(dirs[0], "train").size() >= steps) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("SIGINT, SIGTERM or SIGHUP to `runner launch` reaches every worker: the run ends "
          "interrupted with a valid checkpoint", "[parallel]") {
  const int sig = GENERATE(SIGINT, SIGTERM, SIGHUP);
  std::string dir = runner::test::tmp_dir("dist_signal_" + std::to_string(sig));
  pid_t launcher = start_command(exe() + " launch --nproc-per-node 2 --master-port " + std::to_string(free_port()) +
                                     " " + recipe() + sets(dir, 8, 1) + " --set train.max_steps=100000",
                                 dir + "/launch.log");
  REQUIRE(launcher > 0);
  bool started = wait_for_steps(dir, 2);
  if (!started) kill(launcher, SIGKILL);
  INFO(file_text(dir + "/launch.log"));
  REQUIRE(started);
  kill(launcher, sig);
  int status = 0;
  waitpid(launcher, &status, 0);
  INFO(file_text(dir + "/launch.log"));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 128 + sig);  // 130, 143 or 129: the workers' own exit code
  std::string run = only_run_dir(dir);
  auto s = summary(run);
  CHECK(s["status"] == "interrupted");
  CHECK(s["signal"] == sig);
  auto checkpoint = runner::newest_valid_checkpoint(run + "/checkpoints", [](const std::string&) {});
  REQUIRE(checkpoint);
  runner::TrainingState state = runner::load_training_state(*checkpoint);
  CHECK(state.global_step == s["global_step"].get<long long>());
  CHECK(state.world_size == 2);
}

TEST_CASE("topology.offload is rejected at validation on a CPU build", "[parallel]") {
  auto r = run_command(exe() + " validate " + recipe() + " --set topology.offload=optimizer");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("topology.offload") && Catch::Contains("CPU"));
}
