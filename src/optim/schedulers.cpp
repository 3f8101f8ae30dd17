#include "optim/scheduler.h"
#include "registry/builtins.h"
#include "registry/registry.h"

#include <algorithm>
#include <cmath>

namespace runner {
namespace {

constexpr double kPi = 3.14159265358979323846;

double warmup_factor(long long step, long long warmup) {
  return static_cast<double>(step) / static_cast<double>(std::max<long long>(1, warmup));
}

double progress_after_warmup(long long step, const ScheduleParams& p) {
  return static_cast<double>(step - p.warmup_steps) /
         static_cast<double>(std::max<long long>(1, p.total_steps - p.warmup_steps));
}

LrMultiplier constant(const nlohmann::json&, const ScheduleParams&) {
  return [](long long) { return 1.0; };
}

LrMultiplier constant_with_warmup(const nlohmann::json&, const ScheduleParams& p) {
  return [p](long long step) {
    return step < p.warmup_steps ? warmup_factor(step, p.warmup_steps) : 1.0;
  };
}

LrMultiplier linear(const nlohmann::json&, const ScheduleParams& p) {
  return [p](long long step) {
    if (step < p.warmup_steps) return warmup_factor(step, p.warmup_steps);
    return std::max(0.0, static_cast<double>(p.total_steps - step) /
                             static_cast<double>(std::max<long long>(1, p.total_steps - p.warmup_steps)));
  };
}

LrMultiplier cosine(const nlohmann::json& o, const ScheduleParams& p) {
  double cycles = o.at("num_cycles").get<double>();
  return [p, cycles](long long step) {
    if (step < p.warmup_steps) return warmup_factor(step, p.warmup_steps);
    double progress = progress_after_warmup(step, p);
    return std::max(0.0, 0.5 * (1.0 + std::cos(kPi * cycles * 2.0 * progress)));
  };
}

LrMultiplier cosine_with_restarts(const nlohmann::json& o, const ScheduleParams& p) {
  double cycles = static_cast<double>(o.at("num_cycles").get<long long>());
  return [p, cycles](long long step) {
    if (step < p.warmup_steps) return warmup_factor(step, p.warmup_steps);
    double progress = progress_after_warmup(step, p);
    if (progress >= 1.0) return 0.0;
    return std::max(0.0, 0.5 * (1.0 + std::cos(kPi * std::fmod(cycles * progress, 1.0))));
  };
}

LrMultiplier polynomial(const nlohmann::json& o, const ScheduleParams& p) {
  double lr_end = o.at("lr_end").get<double>();
  double power = o.at("power").get<double>();
  return [p, lr_end, power](long long step) {
    if (step < p.warmup_steps) return warmup_factor(step, p.warmup_steps);
    if (step > p.total_steps) return lr_end / p.base_lr;
    double remaining = 1.0 - progress_after_warmup(step, p);
    return ((p.base_lr - lr_end) * std::pow(remaining, power) + lr_end) / p.base_lr;
  };
}

ComponentSpec spec(std::string name, std::string doc, std::vector<OptionSpec> options = {}) {
  return ComponentSpec{Kind::Scheduler, std::move(name), std::move(doc), std::move(options)};
}

}  // namespace

long long resolve_warmup_steps(const nlohmann::json& options, long long total_steps) {
  long long steps = options.value("warmup_steps", 0LL);
  double ratio = options.value("warmup_ratio", 0.0);
  if (steps > 0) return steps;
  return static_cast<long long>(std::ceil(ratio * static_cast<double>(total_steps)));
}

void register_schedulers(Registry& r) {
  add_builtin(r, spec("constant", "Constant learning rate, no warmup"),
              SchedulerFactory(constant));
  add_builtin(r, spec("constant_with_warmup", "Linear warmup, then constant"),
              SchedulerFactory(constant_with_warmup));
  add_builtin(r, spec("linear", "Linear warmup, then linear decay to 0 at the last step"),
              SchedulerFactory(linear));
  add_builtin(r,
              spec("cosine", "Linear warmup, then cosine decay",
                   {opt::number("num_cycles", 0.5,
                                "Cosine waves over the decay; 0.5 = one half-wave down to 0")
                        .above(0)}),
              SchedulerFactory(cosine));
  add_builtin(r,
              spec("cosine_with_restarts", "Linear warmup, then cosine decay with hard restarts",
                   {opt::integer("num_cycles", 1, "Hard restarts over the decay").at_least(1)}),
              SchedulerFactory(cosine_with_restarts));
  add_builtin(r,
              spec("polynomial", "Linear warmup, then polynomial decay to lr_end",
                   {opt::number("lr_end", 1e-7, "Learning rate at the end of the decay").at_least(0),
                    opt::number("power", 1.0, "Power of the polynomial decay").above(0)}),
              SchedulerFactory(polynomial));
}

}  // namespace runner
