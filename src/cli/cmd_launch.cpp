// `runner launch [--nproc-per-node N] [--nnodes M --node-rank R --master-addr A
// --master-port P] [--max-restarts N] RECIPE`: argument handling only;
// dist/launcher.h starts (and restarts) the workers.
#include "cli/commands.h"

#include "dist/launcher.h"

#include <fmt/format.h>

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <iostream>

namespace runner {
namespace {

std::string own_executable() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("runner");
}

// Each worker runs `runner run RECIPE` with the launch's recipe flags.
std::vector<std::string> worker_args(const ParsedArgs& args) {
  std::vector<std::string> out = {"run", args.positional(0)};
  for (const auto& s : args.all("--set")) out.insert(out.end(), {"--set", s});
  if (args.has("--resume")) out.insert(out.end(), {"--resume", args.get("--resume")});
  for (const auto& a : args.all("--allow-changes")) out.insert(out.end(), {"--allow-changes", a});
  return out;
}

}  // namespace

int cmd_launch(const ParsedArgs& args) {
  std::optional<Recipe> recipe = load_recipe_or_report(args);
  if (!recipe) return kExitBadInput;
  const nlohmann::json topology = recipe->section("topology");
  LaunchOptions o;
  try {
    o.nproc_per_node = integer_flag(args, "--nproc-per-node", topology.at("processes_per_node"));
    o.nnodes = integer_flag(args, "--nnodes", topology.at("nodes"));
    o.node_rank = integer_flag(args, "--node-rank", 0, 0, o.nnodes - 1);
    o.master_port = integer_flag(args, "--master-port", 29500);
    o.max_restarts = integer_flag(args, "--max-restarts", 0);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  o.master_addr = args.get("--master-addr", "127.0.0.1");
  const int threads = recipe->section("run").at("threads").get<int>(), cpus = available_cpus();
  o.passive_openmp_wait = oversubscribed(o.nproc_per_node, threads, cpus);
  if (o.passive_openmp_wait && !std::getenv("OMP_WAIT_POLICY"))
    std::cout << fmt::format("runner launch: {} workers x {} threads exceed the {} CPUs here; they "
                             "wait passively (OMP_WAIT_POLICY=PASSIVE)\n",
                             o.nproc_per_node, threads > 0 ? threads : 1, cpus);
  o.executable = own_executable();
  o.worker_args = worker_args(args);
  // The flags win over the recipe's topology; passing them on as --set makes the
  // run's resolved recipe record what ran (and the workers see no mismatch).
  if (args.has("--nproc-per-node") || args.has("--nnodes"))
    for (const std::string& s : {fmt::format("topology.processes_per_node={}", o.nproc_per_node),
                                 fmt::format("topology.nodes={}", o.nnodes)})
      o.worker_args.insert(o.worker_args.end(), {"--set", s});
  return run_launch(o, std::cout);
}

}  // namespace runner
