// Elastic runs end to end through the real `runner` executable (Gloo over
// loopback): `runner launch --max-restarts` starting a killed worker group
// again until the run completes, bit for bit as an uninterrupted run; and a
// checkpoint of 2 workers x batch 8 continued by 1 worker x batch 8 x
// grad_accum 2 (and the reverse), whose steps see the same 16 examples
// (train/batch_topology.cpp says why), so the losses and final weights match
// the uninterrupted 2-worker run's within float summation order
// (equivalence.h: held to an accumulation run's own distance from it).
#include "model/model_factory.h"
#include "train/batch_topology.h"
#include "train/checkpoint_io.h"
#include "util/synced_file.h"

#include "dist_runs.h"
#include "equivalence.h"
#include "run_files.h"
#include "shared.h"
#include "toy_ranks.h"

#include "catch.h"
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <iostream>

using runner::BatchTopology;
using runner::test::dist_recipe;
using runner::test::dist_sets;
using runner::test::events;
using runner::test::free_port;
using runner::test::only_run_dir;
using runner::test::run_command;
using runner::test::run_summary;
using runner::test::RunTrace;

namespace {

std::string exe() { return runner::test::runner_exe(); }

std::string launch(int workers, const std::string& args) {
  return exe() + " launch --nproc-per-node " + std::to_string(workers) + " --master-port " +
         std::to_string(free_port()) + " " + args;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The uninterrupted 2-worker run of 2 x 8 every test compares with (built once).
const std::string& reference_run() {
  static const std::string run = [] {
    std::string dir = runner::test::tmp_dir("elastic_reference");
    auto r = run_command(launch(2, dist_recipe() + dist_sets(dir, 8, 1)));
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    return only_run_dir(dir);
  }();
  return run;
}

// The uninterrupted 1 worker x 8 x grad_accum 2 run: each step the same 16
// examples as the reference, summed in another order. Its distance from the
// reference is the rounding noise a correct resume may show (equivalence.h).
const std::string& accumulation_run() {
  static const std::string run = [] {
    std::string dir = runner::test::tmp_dir("elastic_accumulation");
    auto r = run_command(exe() + " run " + dist_recipe() + dist_sets(dir, 8, 2));
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    return only_run_dir(dir);
  }();
  return run;
}

RunTrace trace_of(const std::string& run) {
  RunTrace t;
  t.losses = runner::test::step_losses(run);
  for (const auto& p : runner::load_model_folder(run + "/final").model->named_parameters())
    t.weights[p.key()] = p.value().detach().clone();
  return t;
}

// Every step once, at the reference's effective batch; its losses and final
// weights within equivalence.h's bound of the uninterrupted 2-worker run's,
// and its evaluations equal.
void require_reference_training(const std::string& run) {
  auto want = events(reference_run(), "train"), got = events(run, "train");
  REQUIRE(want.size() == 8);  // 64 pairs / 16 per step, 2 epochs
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CHECK(got[i]["step"] == want[i]["step"]);
    CHECK(got[i]["effective_batch"] == 16);
  }
  runner::test::EquivalenceCheck check;
  check.compare_runs(trace_of(reference_run()), trace_of(accumulation_run()), trace_of(run), 16);
  INFO(runner::test::joined(check.violations()));
  CHECK(check.violations().empty());
  auto we = events(reference_run(), "eval"), ge = events(run, "eval");
  REQUIRE(ge.size() == we.size());
  for (size_t i = 0; i < we.size(); ++i) CHECK(ge[i]["accuracy"] == we[i]["accuracy"]);
}

}  // namespace

TEST_CASE("a split of the same global batch may continue a checkpoint; another is refused with "
          "the settings that would keep it", "[parallel]") {
  BatchTopology two{2, 8, 1}, one{1, 8, 2}, wide{1, 16, 1}, half{1, 8, 1};
  CHECK_FALSE(runner::topology_change_error(two, one));
  CHECK_FALSE(runner::topology_change_error(one, two));
  CHECK_FALSE(runner::topology_change_error(two, wide));
  auto e = runner::topology_change_error(two, half);
  REQUIRE(e);
  CHECK_THAT(e->message, Catch::Contains("written by 2 process(es) x train_batch_size 8 x grad_accum 1 = 16") &&
                             Catch::Contains("1 process(es) x train_batch_size 8 x grad_accum 1 = 8"));
  CHECK_THAT(e->hint, Catch::Contains("set train.grad_accum = 2") &&
                          Catch::Contains("set data.train_batch_size = 16") &&
                          Catch::Contains("resume on 2 process(es)"));
  // 3 workers cannot split 16: only going back is offered.
  auto three = runner::topology_change_error(two, BatchTopology{3, 8, 1});
  REQUIRE(three);
  CHECK_THAT(three->hint, !Catch::Contains("set train.") && Catch::Contains("resume on 2 process(es)"));
  // Positions: 2 steps of 2 x 8 are 4 micro-batches of 1 x 8 (2 windows of 2), and back.
  CHECK(runner::convert_batch_in_epoch(2, two, one) == 4);
  CHECK(runner::convert_batch_in_epoch(4, one, two) == 2);
  CHECK(runner::convert_batch_in_epoch(3, two, wide) == 3);
  CHECK_THROWS_AS(runner::convert_batch_in_epoch(1, one, two), runner::InputError);  // mid-window
}

TEST_CASE("runner launch --max-restarts 3: a worker killed twice, the run completes bit for bit "
          "as an uninterrupted one, in one run directory", "[parallel]") {
  const std::string& reference = reference_run();
  std::string dir = runner::test::tmp_dir("elastic_restarts");
  // Checkpoints every 2 steps; rank 1 dies at step 3 (the first start) and at
  // step 7 (the first restart, which resumed from step 2); the second restart
  // resumes from step 6 and finishes.
  auto t0 = std::chrono::steady_clock::now();
  auto r = run_command("RUNNER_TEST_KILL_AT_STEP=3,7 RUNNER_TEST_KILL_RANK=1 " +
                       launch(2, "--max-restarts 3 " + dist_recipe() + dist_sets(dir, 8, 1) +
                                     " --set train.checkpoint_every=2"));
  std::cout << "elastic: 2 restarts took " << seconds_since(t0) << " s\n";
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("restart 1 of 3 after: rank 1 (pid") &&
                        Catch::Contains("restart 2 of 3 after: rank 1 (pid") &&
                        !Catch::Contains("restart 3 of 3"));
  std::string run = only_run_dir(dir);  // REQUIREs exactly one
  auto s = run_summary(run);
  CHECK(s["status"] == "completed");
  CHECK(s["global_step"] == 8);
  CHECK(s["samples_seen"] == 128);
  CHECK(runner::read_file_bytes(run + "/final/model.safetensors") ==
        runner::read_file_bytes(reference + "/final/model.safetensors"));
  auto restarts = events(run, "restart");
  REQUIRE(restarts.size() == 2);
  CHECK(restarts[0]["restart"] == 1);
  CHECK(restarts[0]["step"] == 2);
  CHECK(restarts[1]["restart"] == 2);
  CHECK(restarts[1]["step"] == 6);
  CHECK(restarts[1]["max_restarts"] == 3);
  CHECK_THAT(restarts[0]["reason"].get<std::string>(), Catch::Contains("rank 1") && Catch::Contains("signal 9"));
  // Every step logged once, with the uninterrupted run's bits.
  auto want = events(reference, "train"), got = events(run, "train");
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) CHECK(got[i]["loss"] == want[i]["loss"]);
}

TEST_CASE("runner launch gives up after --max-restarts, saying so; without it a failure ends the "
          "launch as before", "[parallel]") {
  std::string dir = runner::test::tmp_dir("elastic_give_up");
  std::string args = dist_recipe() + dist_sets(dir, 8, 1) + " --set train.checkpoint_every=2";
  auto r = run_command("RUNNER_TEST_KILL_AT_STEP=3,7 RUNNER_TEST_KILL_RANK=1 " +
                       launch(2, "--max-restarts 1 " + args));
  INFO(r.out);
  CHECK(r.exit_code == 128 + 9);
  CHECK_THAT(r.out, Catch::Contains("restart 1 of 1 after") &&
                        Catch::Contains("giving up: the workers failed again after 1 restart(s)"));
  std::string run = only_run_dir(dir);
  CHECK(events(run, "restart").size() == 1);
  CHECK(run_summary(run)["status"] == "failed");
  auto checkpoints = runner::list_checkpoints(run + "/checkpoints");
  REQUIRE_FALSE(checkpoints.empty());
  CHECK_THAT(checkpoints.back(), Catch::EndsWith("step-00000006"));
}

TEST_CASE("2 workers x 8 resumed on 1 worker x 8 x grad_accum 2 (and back) train like the "
          "uninterrupted 2-worker run", "[parallel]") {
  reference_run();  // built before the sections time anything
  accumulation_run();
  SECTION("2 -> 1, with topology.shard_optimizer (the 2 shards become one optimizer)") {
    std::string dir = runner::test::tmp_dir("elastic_2_to_1");
    std::string args = dist_recipe() + dist_sets(dir, 8, 1) + " --set train.checkpoint_every=2" +
                       " --set topology.shard_optimizer=true";
    // Killed at step 3, it resumes mid-epoch from the checkpoint of step 2.
    auto killed = run_command("RUNNER_TEST_KILL_AT_STEP=3 RUNNER_TEST_KILL_RANK=1 " + launch(2, args));
    INFO(killed.out);
    REQUIRE(killed.exit_code != 0);
    std::string run = only_run_dir(dir);
    // Same batch, one worker: refused with the fix.
    auto refused = run_command(exe() + " resume " + run);
    INFO(refused.out);
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.out, Catch::Contains("set train.grad_accum = 2"));
    auto t0 = std::chrono::steady_clock::now();
    auto resumed = run_command(exe() + " resume " + run + " --set train.grad_accum=2");
    std::cout << "elastic: 2 -> 1 resume took " << seconds_since(t0) << " s\n";
    INFO(resumed.out);
    REQUIRE(resumed.exit_code == 0);
    CHECK_THAT(resumed.out, Catch::Contains("as 1 process(es) x train_batch_size 8 x grad_accum 2"));
    CHECK(run_summary(run)["status"] == "completed");
    CHECK(run_summary(run)["samples_seen"] == 128);
    require_reference_training(run);
  }
  SECTION("1 -> 2") {
    std::string dir = runner::test::tmp_dir("elastic_1_to_2");
    std::string args = dist_recipe() + dist_sets(dir, 8, 2) + " --set train.checkpoint_every=2";
    auto killed = run_command("RUNNER_TEST_KILL_AT_STEP=3 " + exe() + " run " + args);
    INFO(killed.out);
    REQUIRE(killed.exit_code == 128 + 9);
    auto resumed = run_command(launch(2, args + " --set train.grad_accum=1 --resume auto"));
    INFO(resumed.out);
    REQUIRE(resumed.exit_code == 0);
    std::string run = only_run_dir(dir);
    CHECK(run_summary(run)["status"] == "completed");
    require_reference_training(run);
  }
}
