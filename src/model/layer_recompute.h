// Gradient checkpointing (model.gradient_checkpointing): a layer run without
// keeping its activations for the backward, which runs the layer again from its
// saved input and back-propagates through that recomputation, as
// torch.utils.checkpoint's reentrant variant does. Memory: one tensor per layer
// (its input) instead of every intermediate; time: one more forward per layer.
// The recomputation draws the same dropout masks (the random generators are
// set back to their state at the forward, then restored) under the same
// autocast settings, so the gradients are those of the forward that ran.
#pragma once

#include <torch/torch.h>

#include <functional>

namespace runner {

using LayerCall = std::function<torch::Tensor(const torch::Tensor&)>;

// layer(input), its activations recomputed in the backward. `layer` must own
// (capture by value) everything it reads besides its input.
torch::Tensor recomputed_in_backward(LayerCall layer, const torch::Tensor& input);

}  // namespace runner
