// An example plugin: a learning-rate schedule the runner does not ship.
// After linear warmup the multiplier decays as 1 / sqrt(1 + (step - warmup) / timescale).
// Built three ways by tests/plugins/meson.build: as is, with a wrong ABI version,
// and (PLUGIN_SCHEDULER_NAME="linear") clashing with a built-in name.
#include "optim/scheduler.h"
#include "registry/plugin_api.h"

#include <cmath>

#ifndef PLUGIN_SCHEDULER_NAME
#define PLUGIN_SCHEDULER_NAME "inverse_sqrt"
#endif

namespace {

runner::LrMultiplier inverse_sqrt(const nlohmann::json& options, const runner::ScheduleParams& p) {
  double timescale = static_cast<double>(options.at("timescale").get<long long>());
  return [p, timescale](long long step) {
    if (step < p.warmup_steps) return static_cast<double>(step) / static_cast<double>(p.warmup_steps);
    return 1.0 / std::sqrt(1.0 + static_cast<double>(step - p.warmup_steps) / timescale);
  };
}

void register_inverse_sqrt(runner::PluginContext& ctx) {
  ctx.add(runner::ComponentSpec{runner::Kind::Scheduler, PLUGIN_SCHEDULER_NAME,
                                "Linear warmup, then inverse square-root decay (example plugin)",
                                {runner::opt::integer("timescale", 10, "Steps per unit of decay")
                                     .at_least(1)}},
          runner::SchedulerFactory(inverse_sqrt));
}

}  // namespace

RUNNER_PLUGIN(register_inverse_sqrt)
