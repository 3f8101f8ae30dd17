#include "run/resume_plan.h"

#include "parallel/worker_env.h"
#include "run/env_record.h"
#include "run/record_integrity.h"
#include "run/run_parallel.h"
#include "train/training_state.h"
#include "util/diagnostic.h"
#include "util/json_input.h"

#include <fmt/format.h>

#include <iostream>

namespace runner {
namespace {

BatchTopology session_topology(const SessionSettings& s, const DistContext* dist) {
  return {dist ? dist->world_size() : 1, s.data.train_batch_size, s.train.grad_accum};
}

// The checkpoint's state, and its place under this run's split of the global batch.
void plan_position(ResumePlan& plan, const ResumeRequest& r, const nlohmann::json& recorded) {
  plan.state = std::make_shared<const TrainingState>(load_training_state(plan.point.checkpoint));
  const BatchTopology then = checkpoint_topology(*plan.state, recorded);
  const BatchTopology now = session_topology(r.settings, r.dist);
  if (auto error = topology_change_error(then, now)) throw InputError(*error);
  plan.position = {then, now, convert_batch_in_epoch(plan.state->batch_in_epoch, then, now)};
  if (plan.topology_changed() && is_primary(r.dist))
    std::cerr << fmt::format("resuming the checkpoint of {} as {}\n", then.str(), now.str());
}

}  // namespace

BatchTopology checkpoint_topology(const TrainingState& state, const nlohmann::json& recorded) {
  BatchTopology t;
  t.world = state.world_size;
  t.rank_batch = record_integer(state.sampler, "batch_size",
                                recorded.value(nlohmann::json::json_pointer("/data/train_batch_size"), 1LL));
  t.grad_accum = state.grad_accum;
  if (t.grad_accum <= 0) t.grad_accum = recorded.value(nlohmann::json::json_pointer("/train/grad_accum"), 1LL);
  return t;
}

ResumePlan plan_resume(const ResumeRequest& r) {
  require_own_records(r.paths);
  const nlohmann::json recorded = read_json_file(r.paths.recipe_resolved());
  ResumePlan plan;
  plan.point = find_resume_point(r.paths);
  if (!plan.point.checkpoint.empty()) plan_position(plan, r, recorded);
  // The recipe's differences from the recorded one, and the data and tokenizer
  // files' from their recorded sha256.
  const SessionSettings& s = r.settings;
  plan.data = open_data(s.data, s.data_section, s.tokenizer);
  const std::vector<std::string> files = data_content_files(*plan.data, s.tokenizer);
  const EnvRecord env = read_env_record(r.paths);
  plan.changes = resume_changes({recorded, nlohmann::json(r.recipe.resolved), nlohmann::json(env.content_sha256), files},
                                r.allow_changes, r.paths.dir);
  return plan;
}

}  // namespace runner
