// Reading a worker's place from the launch conventions (torchrun, SLURM).
#include "parallel/data_parallel.h"
#include "parallel/worker_env.h"
#include "util/diagnostic.h"

#include "shared.h"

#include "catch.h"

#include <map>

using runner::WorkerEnv;

namespace {

runner::EnvLookup env_of(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

}  // namespace

TEST_CASE("torchrun variables give rank, world and rendezvous", "[parallel]") {
  auto w = runner::worker_env_from(env_of({{"RANK", "3"}, {"WORLD_SIZE", "4"}, {"LOCAL_RANK", "1"},
                                           {"LOCAL_WORLD_SIZE", "2"}, {"MASTER_ADDR", "node7"},
                                           {"MASTER_PORT", "23456"}}));
  REQUIRE(w);
  CHECK(w->source == "torchrun");
  CHECK(w->rank == 3);
  CHECK(w->world_size == 4);
  CHECK(w->local_rank == 1);
  CHECK(w->local_world_size == 2);
  CHECK(w->master_addr == "node7");
  CHECK(w->master_port == 23456);
}

TEST_CASE("no launcher variables means a single process", "[parallel]") {
  CHECK_FALSE(runner::worker_env_from(env_of({{"HOME", "/root"}})));
}

TEST_CASE("SLURM variables: rank from SLURM_PROCID, master from the first node of the list", "[parallel]") {
  auto w = runner::worker_env_from(env_of({{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"},
                                           {"SLURM_LOCALID", "0"}, {"SLURM_NODELIST", "gpu[03-05,07],cpu1"},
                                           {"MASTER_PORT", "29999"}}));
  REQUIRE(w);
  CHECK(w->source == "slurm");
  CHECK(w->rank == 1);
  CHECK(w->world_size == 2);
  CHECK(w->master_addr == "gpu03");
  CHECK(w->master_port == 29999);
  CHECK(runner::first_slurm_host("n1,n2") == "n1");
  CHECK(runner::first_slurm_host("a[10-11]") == "a10");
  CHECK(runner::first_slurm_host("solo") == "solo");
}

TEST_CASE("a malformed or out-of-range launcher variable is an error naming it", "[parallel]") {
  auto bad = [](std::map<std::string, std::string> vars, const std::string& name) {
    try {
      runner::worker_env_from(env_of(vars));
      FAIL("no error for " << name);
    } catch (const runner::InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains(name));
    }
  };
  bad({{"RANK", "2"}, {"WORLD_SIZE", "2"}}, "RANK");
  bad({{"RANK", "x"}, {"WORLD_SIZE", "2"}}, "RANK");
  bad({{"RANK", "0"}}, "WORLD_SIZE");
  bad({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "70000"}}, "MASTER_PORT");
}

TEST_CASE("ZeRO-1 partition: every parameter has one owner, split by size", "[parallel]") {
  std::vector<runner::NamedParameter> params = {
      {"a", torch::zeros({100})}, {"b", torch::zeros({60})}, {"c", torch::zeros({50})}, {"d", torch::zeros({10})}};
  // Greedy to the least-loaded rank: a->0 (100), b->1 (60), c->1 (110), d->0 (110).
  CHECK(runner::partition_parameters(params, 2) == std::vector<int>{0, 1, 1, 0});
  auto mine = runner::owned_parameters(params, {0, 1, 1, 0}, 1);
  REQUIRE(mine.size() == 2);
  CHECK(mine[0].name == "b");
  CHECK(mine[1].name == "c");
}

TEST_CASE("runner launch's restart variables read back, and the run directory note round-trips",
          "[parallel]") {
  runner::LaunchAttempt a;
  a.restart = 2;
  a.max_restarts = 3;
  a.reason = "rank 1 (pid 7) was killed by signal 9 (Killed)";
  a.run_dir_note = "/tmp/note";
  std::map<std::string, std::string> vars;
  for (const auto& [k, v] : runner::launch_attempt_variables(a)) vars[k] = v;
  runner::LaunchAttempt b = runner::launch_attempt_from(env_of(vars));
  CHECK(b.restart == 2);
  CHECK(b.max_restarts == 3);
  CHECK(b.reason == a.reason);
  CHECK(b.run_dir_note == "/tmp/note");
  CHECK(runner::launch_attempt_from(env_of({})).restart == 0);  // not under a restarting launcher
  CHECK_THROWS_AS(runner::launch_attempt_from(env_of({{"RUNNER_RESTART_COUNT", "x"}})), runner::InputError);

  std::string note = runner::test::tmp_dir("run_dir_note") + "/note";
  CHECK(runner::read_run_dir_note(note).empty());  // no note yet
  runner::write_run_dir_note(note, "/runs/mrpc/20260101T000000Z-abcdef");
  CHECK(runner::read_run_dir_note(note) == "/runs/mrpc/20260101T000000Z-abcdef");
}
