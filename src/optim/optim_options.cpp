#include "recipe/sections.h"

namespace runner {

SectionSpec optimizer_section() {
  SectionSpec s;
  s.name = "optimizer";
  s.doc = "The optimizer component and its hyper-parameters";
  s.component_kind = Kind::Optimizer;
  s.selector_key = "type";
  s.default_component = "adamw";
  s.options = {
      opt::number("lr", 5e-5, "Peak learning rate (the schedule multiplies it)").above(0),
      opt::number("weight_decay", 0.0,
                  "Weight decay; AdamW decouples it (p -= lr*wd*p), Adam and SGD add wd*p "
                  "to the gradient")
          .at_least(0),
      opt::strings("no_decay", {"bias", "LayerNorm.weight"},
                   "Parameters whose name contains one of these get no weight decay"),
  };
  return s;
}

SectionSpec scheduler_section() {
  SectionSpec s;
  s.name = "scheduler";
  s.doc = "Learning-rate schedule (Hugging Face get_scheduler semantics)";
  s.component_kind = Kind::Scheduler;
  s.selector_key = "type";
  s.default_component = "linear";
  s.options = {
      opt::integer("warmup_steps", 0, "Optimizer steps of linear warmup from 0").at_least(0),
      opt::number("warmup_ratio", 0.0,
                  "Warmup as a fraction of all optimizer steps (instead of warmup_steps)")
          .at_least(0)
          .at_most(1),
  };
  return s;
}

}  // namespace runner
