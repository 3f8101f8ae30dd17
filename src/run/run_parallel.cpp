#include "run/run_parallel.h"

#include "parallel/optimizer_offload.h"
#include "parallel/worker_env.h"
#include "registry/registry.h"
#include "run/run_setup.h"

#include <fmt/format.h>

#include <iostream>

namespace runner {

std::shared_ptr<DistContext> join_workers(const Recipe& recipe, const RunSettings& run) {
  std::optional<WorkerEnv> env = worker_env_from_process();
  if (!env || env->world_size <= 1) return nullptr;
  const nlohmann::json topology = recipe.section("topology");
  long long planned = topology.at("nodes").get<long long>() * topology.at("processes_per_node").get<long long>();
  if (planned != env->world_size && env->rank == 0)
    std::cerr << fmt::format("warning: the launcher ({}) started {} processes and topology plans {} "
                             "(nodes x processes_per_node); training on {}\n",
                             env->source, env->world_size, planned, env->world_size);
  auto ctx = std::make_shared<DistContext>(*env, topology,
                                           pick_device(run));
  if (env->rank == 0)
    std::cerr << fmt::format("data parallel: {} ranks over {} ({}), rendezvous {}:{}\n", env->world_size,
                             ctx->backend(), env->source, env->master_addr, env->master_port);
  return ctx;
}

void shard_sampler(SamplerConfig& sampler, const DistContext* ctx) {
  if (!ctx) return;
  sampler.world_size = ctx->world_size();
  sampler.rank = ctx->rank();
}

void split_threads(const RunSettings& run, const DistContext* ctx) {
  if (!ctx || run.threads != 0) return;
  torch::set_num_threads(std::max(1, usable_cpus() / std::max(1, ctx->env().local_world_size)));
}

std::unique_ptr<Optimizer> make_rank_optimizer(const Recipe& recipe, const std::shared_ptr<DistContext>& dist,
                                               TaskModel& model,
                                               std::unique_ptr<DataParallel>& parallel) {
  const nlohmann::json section = recipe.section("optimizer"), topology = recipe.section("topology");
  std::vector<NamedParameter> params = named_parameters(model);
  if (dist) {
    const bool shard = topology.at("shard_optimizer");
    parallel = std::make_unique<DataParallel>(dist, params, shard);
    if (shard) params = owned_parameters(params, parallel->owners(), dist->rank());
  }
  OptimizerMaker make = [section](std::vector<NamedParameter> p) {
    return instantiate<OptimizerFactory>(Kind::Optimizer, section.at("type").get<std::string>(),
                                         section, std::move(p));
  };
  if (topology.value("offload", std::string("none")) == "optimizer")
    return std::make_unique<OffloadedOptimizer>(std::move(params), make);
  return make(std::move(params));
}

std::string agree_on(DistContext* ctx, const std::string& key, const std::string& rank0_value) {
  return ctx ? ctx->share_string(key, rank0_value) : rank0_value;
}

RunChoice agree_on_run_choice(DistContext* ctx, const RunChoice& rank0_choice) {
  if (!ctx) return rank0_choice;
  return run_choice_from_text(agree_on(ctx, "run_dir", run_choice_text(rank0_choice)));
}

}  // namespace runner
