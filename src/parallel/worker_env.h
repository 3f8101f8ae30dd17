// Where a worker process stands in a multi-process run, read from the launch
// conventions it was started under: torchrun / `runner launch` (RANK,
// WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT) or SLURM's
// srun (SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_NODELIST). Torch-free.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace runner {

struct WorkerEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int local_world_size = 1;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  std::string source = "single";  // "torchrun" or "slurm" when read from the environment
};

using EnvLookup = std::function<const char*(const char*)>;

// The worker's place from the environment: torchrun variables first, then
// SLURM's; nullopt when neither is set (a plain single-process run). Throws
// InputError naming the variable when one is malformed or out of range.
std::optional<WorkerEnv> worker_env_from(const EnvLookup& getenv_fn);
std::optional<WorkerEnv> worker_env_from_process();

// The first host of a SLURM node list: "gpu[03-05,07],cpu1" gives "gpu03".
std::string first_slurm_host(const std::string& nodelist);

// The variables a launcher sets for one worker (torchrun's names).
std::vector<std::pair<std::string, std::string>> worker_variables(const WorkerEnv& w);

// What `runner launch --max-restarts N` tells its workers beyond torchrun's
// variables (torchrun's TORCHELASTIC_RESTART_COUNT is the model):
//   RUNNER_RESTART_COUNT   0 for the first start, k for the k-th restart
//   RUNNER_MAX_RESTARTS    N
//   RUNNER_RESTART_REASON  why the previous attempt ended ("rank 1 ... was killed by signal 9")
//   RUNNER_RUN_DIR_NOTE    a file in which rank 0 notes the run directory it
//                          trains in, so that a restart continues that same run
struct LaunchAttempt {
  int restart = 0;
  int max_restarts = 0;
  std::string reason;
  std::string run_dir_note;  // empty: not started by a launcher that restarts
};
LaunchAttempt launch_attempt_from(const EnvLookup& getenv_fn);
LaunchAttempt launch_attempt_from_process();
std::vector<std::pair<std::string, std::string>> launch_attempt_variables(const LaunchAttempt& a);

// The run directory a previous attempt noted, or empty; and noting one
// (written whole and renamed into place, so a reader never sees half of it).
std::string read_run_dir_note(const std::string& note);
void write_run_dir_note(const std::string& note, const std::string& run_dir);

}  // namespace runner
