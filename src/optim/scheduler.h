// Learning-rate schedules with Hugging Face get_scheduler semantics. A schedule
// is a pure function of the optimizer step, so its progress is just the step
// count the training state already saves.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>

namespace runner {

struct ScheduleParams {
  long long total_steps = 0;   // optimizer steps in the whole run
  long long warmup_steps = 0;  // already resolved from warmup_ratio if that was given
  double base_lr = 0.0;
};

// Multiplier of the base learning rate for the step about to be taken
// (0 for the first step), as LambdaLR computes it.
using LrMultiplier = std::function<double(long long step)>;

// options: the resolved [scheduler] section.
using SchedulerFactory = std::function<LrMultiplier(const nlohmann::json& options,
                                                    const ScheduleParams& params)>;

// warmup_steps from the [scheduler] section: warmup_steps, or ceil(ratio * total)
// as Hugging Face's TrainingArguments.get_warmup_steps does.
long long resolve_warmup_steps(const nlohmann::json& options, long long total_steps);

}  // namespace runner
