// `runner launch [--nproc-per-node N] [--nnodes M --node-rank R --master-addr A
// --master-port P] [--max-restarts N] RECIPE`: argument handling only;
// parallel/launcher.h starts (and restarts) the workers.
#include "cli/commands.h"

#include "parallel/launcher.h"
#include "parallel/rendezvous_port.h"
#include "util/paths.h"

#include <fmt/format.h>


#include <cstdlib>
#include <iostream>

namespace runner {
namespace {

std::string own_executable() {
  const std::string exe = executable_path();
  return exe.empty() ? std::string("runner") : exe;
}

// Each worker runs `runner run RECIPE` with the launch's recipe flags.
std::vector<std::string> worker_args(const ParsedArgs& args) {
  std::vector<std::string> out = {"run", args.positional(0)};
  for (const auto& s : args.all("--set")) out.insert(out.end(), {"--set", s});
  if (args.has("--resume")) out.insert(out.end(), {"--resume", args.get("--resume")});
  for (const auto& a : args.all("--allow-changes")) out.insert(out.end(), {"--allow-changes", a});
  return out;
}

constexpr int kDefaultMasterPort = 29500;  // torchrun's

// Where rank 0's store listens. On one machine without --master-port, a port the
// kernel says is free, so that two launches never meet; across machines every
// launcher must name the same one (29500 unless given). Node 0 hosts the store:
// a port already listened on there is refused before any worker starts, since
// LibTorch would say so in glog's words, and the workers of this launch could
// join another run's store.
std::optional<int> rendezvous_port(const ParsedArgs& args, LaunchOptions& o) {
  bool given = args.has("--master-port");
  int port = static_cast<int>(integer_flag(args, "--master-port", kDefaultMasterPort));
  if (!given && o.nnodes == 1) return free_port(o.master_addr).value_or(kDefaultMasterPort);
  if (o.node_rank != 0) return port;
  PortState state = port_state(o.master_addr, port);
  if (state != PortState::InUse && state != PortState::Forbidden) return port;
  std::cerr << fmt::format("error: {}: port {} of {} {}\n  hint: {}\n",
                           given ? "--master-port " + std::to_string(port) : std::string("the rendezvous port"), port,
                           o.master_addr,
                           state == PortState::InUse ? "is in use (another launch, or another program, listens there)"
                                                     : "needs privileges to listen on (ports below 1024)",
                           o.nnodes == 1 ? "pass another --master-port, or leave it out and a free port is picked"
                                         : "pass another --master-port P to the launcher of every node");
  return std::nullopt;
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
    o.max_restarts = integer_flag(args, "--max-restarts", 0);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  o.master_addr = args.get("--master-addr", "127.0.0.1");
  std::optional<int> port;
  try {
    port = rendezvous_port(args, o);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  if (!port) return kExitBadInput;
  o.master_port = *port;
  const int threads = recipe->section("run").at("threads").get<int>(), cpus = available_cpus();
  o.passive_openmp_wait = oversubscribed(o.nproc_per_node, threads, cpus);
  o.divide_cpus = threads == 0;
  if (o.passive_openmp_wait && !std::getenv("OMP_WAIT_POLICY"))
    std::cerr << fmt::format("runner launch: {} workers x {} threads exceed the {} CPUs here; they "
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
  return run_launch(o, std::cout, std::cerr);
}

}  // namespace runner
