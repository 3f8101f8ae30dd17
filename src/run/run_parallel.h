// A training session's share of data parallelism: joining the other workers
// when a launcher started this process (torchrun / runner launch / srun
// variables), and the pieces the training session wires in. Single-process runs get
// a null context and none of this.
#pragma once

#include "data/sampler.h"
#include "parallel/data_parallel.h"
#include "model/model.h"
#include "recipe/recipe.h"
#include "run/run_choice.h"
#include "run/run_options.h"

#include <memory>
#include <string>

namespace runner {

// Joins the process group when the environment names a world of more than one
// process; null otherwise. Warns when the world differs from [topology].
std::shared_ptr<DistContext> join_workers(const Recipe& recipe, const RunSettings& run);

// Whether this process writes the run's files (rank 0, or a single process).
inline bool is_primary(const DistContext* ctx) { return !ctx || ctx->rank() == 0; }

// The training sampler's shard of this rank.
void shard_sampler(SamplerConfig& sampler, const DistContext* ctx);

// run.threads = 0 means every usable CPU, split between the workers of one machine.
void split_threads(const RunSettings& run, const DistContext* ctx);

// This rank's optimizer: over every parameter, or over its share with
// topology.shard_optimizer; stepping on the host with topology.offload =
// "optimizer". Under data parallelism `parallel` gets the gradient exchange.
std::unique_ptr<Optimizer> make_rank_optimizer(const Recipe& recipe, const std::shared_ptr<DistContext>& dist,
                                               TaskModel& model,
                                               std::unique_ptr<DataParallel>& parallel);

// Rank 0's value of a run-directory decision, shared with every rank.
std::string agree_on(DistContext* ctx, const std::string& key, const std::string& rank0_value);
// Rank 0's choice of run directory, shared with every rank as its text form
// (run/run_choice.h); other ranks' own choice is ignored.
RunChoice agree_on_run_choice(DistContext* ctx, const RunChoice& rank0_choice);

}  // namespace runner
