#include "run/resume_plan.h"

#include "parallel/worker_env.h"
#include "run/env_record.h"
#include "run/record_integrity.h"
#include "run/run_parallel.h"
#include "train/training_state.h"
#include "util/diagnostic.h"
#include "util/json_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

namespace runner {
namespace {

// The settings that split the global batch. A resume checks them against the
// checkpoint (train/batch_topology.h) instead of requiring them unchanged.
const char* const kBatchSplitKeys[] = {"topology.processes_per_node", "topology.nodes",
                                       "data.train_batch_size", "train.grad_accum"};

bool splits_batch(const RunChange& c) {
  return std::any_of(std::begin(kBatchSplitKeys), std::end(kBatchSplitKeys),
                     [&c](const char* k) { return c.key == k; });
}

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

// The recipe's differences from the recorded one, and the data and tokenizer
// files' from their recorded sha256; every one not allowed is refused.
void plan_changes(ResumePlan& plan, const ResumeRequest& r, const nlohmann::json& recorded) {
  std::vector<RunChange> changes = recipe_changes(recorded, nlohmann::json(r.recipe.resolved));
  changes.erase(std::remove_if(changes.begin(), changes.end(), splits_batch), changes.end());
  const SessionSettings& s = r.settings;
  plan.data = open_data(s.data, s.data_section, s.tokenizer);
  const nlohmann::json env = read_env_record(r.paths);
  for (auto& c : content_changes(env.value("content_sha256", nlohmann::json::object()),
                                 content_hashes(data_content_files(*plan.data, s.tokenizer))))
    changes.push_back(std::move(c));
  check_changes(changes, r.allow_changes, r.paths.dir);
  plan.changes = std::move(changes);
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
  plan_changes(plan, r, recorded);
  return plan;
}

}  // namespace runner
