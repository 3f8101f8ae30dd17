// The one decision of a resume, made once per run before the run directory
// changes: where it continues (the newest checkpoint that verifies), that
// checkpoint's training state read and checked, the split of the global batch
// then and now with the position converted, and what changed in the recipe and
// in the content of its files. A refusal (InputError, exit 2) leaves the run as
// it was. The session restores from the plan (run/training_session.h), and the
// trainer only applies it (Trainer::resume).
#pragma once

#include "run/resume_point.h"
#include "run/run_changes.h"
#include "run/run_data.h"
#include "run/run_dir.h"
#include "run/session_settings.h"
#include "train/batch_topology.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace runner {

class DistContext;
struct TrainingState;

struct ResumePlan {
  ResumePoint point;  // the checkpoint, or step 0 with a warning when none verifies
  // Its training state, read before any record is rewritten; null from step 0.
  std::shared_ptr<const TrainingState> state;
  ResumePosition position;  // the split then and now, the position under now's
  // Differences from what the run was started with, the batch split's keys
  // left out (a change of split is checked as one, above); the plan holds only
  // changes allowed by --allow-changes.
  std::vector<RunChange> changes;
  // The dataset and tokenizer opened to hash their files; the session goes on with them.
  std::optional<RunData> data;
  bool topology_changed() const { return state && !(position.then == position.now); }
};

struct ResumeRequest {
  const Recipe& recipe;
  const SessionSettings& settings;
  RunPaths paths;
  const DistContext* dist = nullptr;  // null in a single-process run
  std::vector<std::string> allow_changes;
};

// Builds the plan, or throws InputError naming what stops the resume: a record
// that is not the run's own file, a damaged state.json, a global batch that
// another split does not keep, a change not allowed (showing the diff).
ResumePlan plan_resume(const ResumeRequest& request);

// The split of the global batch a checkpoint's state was written under;
// checkpoints older than its batch size and accumulation fields ran the
// `recorded` resolved recipe's.
BatchTopology checkpoint_topology(const TrainingState& state, const nlohmann::json& recorded);

}  // namespace runner
