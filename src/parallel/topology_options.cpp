#include "recipe/sections.h"

namespace runner {

SectionSpec topology_section() {
  SectionSpec s;
  s.name = "topology";
  s.doc = "Processes and machines the run spans, and the memory levers of data parallelism";
  s.options = {
      // The maxima of runner launch's --nproc-per-node and --nnodes: launch forks
      // processes_per_node workers, and a million would be a fork bomb, not a run.
      opt::integer("processes_per_node", 1, "Worker processes on each machine").at_least(1).at_most(4096),
      opt::integer("nodes", 1, "Machines taking part").at_least(1).at_most(65536),
      opt::choice("backend", {"auto", "gloo", "nccl"}, "auto",
                  "Collective backend: auto is NCCL on CUDA, Gloo on CPU"),
      opt::integer("timeout_s", 300, "Seconds a collective may wait before the run fails")
          .at_least(1),
      opt::flag("shard_optimizer", false, "Shard optimizer state across ranks (ZeRO stage 1)"),
      opt::choice("offload", {"none", "optimizer"}, "none",
                  "Keep optimizer state in host memory when training on CUDA"),
  };
  return s;
}

}  // namespace runner
