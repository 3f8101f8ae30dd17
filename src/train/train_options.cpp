#include "recipe/sections.h"

namespace runner {

SectionSpec train_section() {
  SectionSpec s;
  s.name = "train";
  s.doc = "The training loop: length, precision, accumulation, clipping, evaluation, checkpoints";
  s.options = {
      opt::number("epochs", 3.0, "Passes over the training data (fractions allowed)").above(0),
      opt::integer("max_steps", 0, "Stop after this many optimizer steps; 0 = use epochs")
          .at_least(0),
      opt::choice("precision", {"fp32", "bf16", "fp16"}, "fp32",
                  "fp32; bf16 autocast; fp16 autocast with dynamic loss scaling (CUDA only)"),
      opt::integer("grad_accum", 1, "Micro-batches accumulated per optimizer step").at_least(1),
      opt::number("max_grad_norm", 1.0, "Clip the global gradient L2 norm to this; 0 = off")
          .at_least(0),
      opt::integer("eval_every", 0, "Evaluate every N optimizer steps; 0 = only per epoch")
          .at_least(0),
      opt::flag("eval_each_epoch", true, "Evaluate at the end of every epoch"),
      opt::integer("log_every", 50, "Log averaged training metrics every N optimizer steps")
          .at_least(1),
      opt::integer("checkpoint_every", 0,
                   "Checkpoint every N optimizer steps; 0 = only at the end and on interrupt")
          .at_least(0),
      opt::integer("keep_last", 2, "Checkpoints kept (the best and the newest are never deleted)")
          .at_least(1),
      opt::text("metric_for_best", "",
                "Eval metric that picks the best checkpoint, e.g. \"eval.f1\"; empty = the "
                "dataset's main metric"),
      opt::flag("greater_is_better", true, "Whether a larger metric_for_best is better"),
      opt::integer("early_stopping_patience", 0,
                   "Stop after N evaluations without improvement; 0 = never")
          .at_least(0),
      opt::choice("nan_policy", {"abort", "skip"}, "abort",
                  "On a NaN or infinite loss: stop with the step and example ids, or skip it"),
      opt::number("loss_scale_init", 65536.0, "fp16: initial dynamic loss scale").above(0),
      opt::integer("loss_scale_growth_interval", 2000,
                   "fp16: clean steps before the loss scale doubles")
          .at_least(1),
  };
  return s;
}

}  // namespace runner
