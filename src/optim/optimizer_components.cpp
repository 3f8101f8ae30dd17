// The specs of the built-in optimizers: each one's own options, and at validate
// time the checks its builder makes (optim/optimizers.cpp).
#include "optim/optimizer_components.h"

#include "registry/builtins.h"
#include "registry/registry.h"
#include "util/diagnostic.h"

namespace runner {
namespace {

std::vector<OptionSpec> adam_options() {
  return {
      opt::numbers("betas", {0.9, 0.999}, "Decay rates of the first and second moment")
          .items(2)
          .at_least(0)
          .below(1),
      opt::number("eps", 1e-8, "Added to the denominator for numerical stability").at_least(0),
  };
}

ComponentSpec sgd_spec() {
  ComponentSpec sgd{Kind::Optimizer, "sgd", "SGD with optional momentum and Nesterov momentum",
                    {opt::number("momentum", 0.0, "Momentum factor; 0 = plain SGD").at_least(0),
                     opt::number("dampening", 0.0, "Dampening of the momentum").at_least(0),
                     opt::flag("nesterov", false, "Use Nesterov momentum")}};
  // make_sgd's own check, at validate time.
  sgd.recipe_check = [](const nlohmann::json& recipe) {
    const nlohmann::json& o = recipe.at("optimizer");
    Diagnostics out;
    if (o.value("nesterov", false) && (o.value("momentum", 0.0) <= 0 || o.value("dampening", 0.0) != 0))
      out.push_back(make_error({}, "optimizer.nesterov", "nesterov needs momentum > 0 and dampening = 0",
                               "set optimizer.momentum (e.g. 0.9) and dampening = 0"));
    return out;
  };
  return sgd;
}

}  // namespace

void register_optimizers(Registry& r) {
  const OptimizerBuilders& builders = optimizer_builders();
  add_builtin(r,
              ComponentSpec{Kind::Optimizer, "adamw",
                            "AdamW (torch.optim.AdamW): Adam with decoupled weight decay",
                            adam_options()},
              builders.adamw);
  add_builtin(r,
              ComponentSpec{Kind::Optimizer, "adam",
                            "Adam (torch.optim.Adam): weight decay added to the gradient",
                            adam_options()},
              builders.adam);
  add_builtin(r, sgd_spec(), builders.sgd);
}

}  // namespace runner
