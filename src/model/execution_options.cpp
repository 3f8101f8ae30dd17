#include "model/execution_options.h"

namespace runner {

std::vector<OptionSpec> execution_options() {
  return {
      opt::choice("execution", {"unpadded", "padded"}, "unpadded",
                  "Run Linear/LayerNorm/GELU on real tokens only, or on the padded batch"),
      opt::flag("gradient_checkpointing", false,
                "Keep only each encoder layer's input in training and recompute the layer in the "
                "backward: less memory for larger batches, about a third more compute "
                "(Transformers' gradient_checkpointing)"),
  };
}

}  // namespace runner
