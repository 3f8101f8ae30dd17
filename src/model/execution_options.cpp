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
      opt::flag("qa_loss_includes_padding", false,
                "Question answering: run the start and end softmax over the padding positions too, as "
                "Transformers' *ForQuestionAnswering does (the model then runs padded); by default they "
                "run over each window's tokens, and the padding costs nothing"),
  };
}

}  // namespace runner
