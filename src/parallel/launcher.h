// `runner launch`: starts this node's workers as child processes with the
// torchrun variables set, passes rank 0's standard output through as it is
// (the run directory) and every other line they print to standard error with
// "[rank R] " in front,
// forwards SIGINT/SIGTERM/SIGHUP to them, and exits with the first failure, or, with
// max_restarts, starts the whole group again (torchrun's --max-restarts).
// Torch-free.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace runner {

struct LaunchOptions {
  int nproc_per_node = 1;
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  std::string executable;                // the runner binary each worker runs
  std::vector<std::string> worker_args;  // e.g. {"run", "recipe.toml", "--set", "..."}
  // OMP_WAIT_POLICY=PASSIVE in the workers' environment, unless the user set one.
  bool passive_openmp_wait = false;
  // Each worker runs on its own equal share of the CPUs this process may use
  // (for the runner's default of every usable CPU per process: 2 workers on 2
  // CPUs get 1 thread each); with fewer CPUs than workers they share them all.
  bool divide_cpus = false;
  // After the first worker fails, how long the others get to stop by themselves
  // (they notice the lost rank and say so) before they are killed.
  int grace_seconds = 90;
  // After a worker fails, stop the group and start it again up to this many
  // times; the restarted workers continue the run the first attempt trains in
  // from its newest valid checkpoint (parallel/worker_env.h, LaunchAttempt).
  int max_restarts = 0;
};

// The CPUs this process may run on.
int available_cpus();

// Whether `processes` workers of `threads` intra-op threads each (0: the
// runner's default, the CPUs split between the workers) need more than `cpus`
// cores. Then OpenMP's spinning waits steal the cores the others compute on,
// and passive waits are faster.
bool oversubscribed(int processes, int threads, int cpus);

// Runs the workers to the end. Returns 0 when all succeed, else the first
// failure's exit code (128 + signal for a worker killed by a signal) of the
// last attempt. A failure is not retried when the launcher was interrupted or
// the worker said its input is bad (exit 2) or that it was interrupted (130, 143).
// `out` gets rank 0's standard output; `err` every other line and the launcher's own.
int run_launch(const LaunchOptions& options, std::ostream& out, std::ostream& err);

// Whether a worker group that failed with `exit_code` is worth starting again.
bool restartable_failure(int exit_code);

}  // namespace runner
