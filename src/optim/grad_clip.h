// Gradient clipping by the global L2 norm with torch.nn.utils.clip_grad_norm_
// (1.13) semantics.
#pragma once

#include "optim/optimizer.h"

namespace runner {

// The L2 norm of the per-parameter gradient L2 norms, as a 0-dim tensor so the
// caller decides when to synchronise with the host. Parameters without a gradient
// are skipped; with none at all the norm is 0.
torch::Tensor global_grad_norm(const std::vector<NamedParameter>& params);

// Scales every gradient by min(1, max_norm / (norm + 1e-6)) and returns the
// pre-clip norm. max_norm <= 0 only measures.
torch::Tensor clip_grad_norm(const std::vector<NamedParameter>& params, double max_norm);

// The scaling step of clip_grad_norm with a norm measured elsewhere (e.g. over
// gradients that other processes hold).
void clip_to_norm(const std::vector<NamedParameter>& params, const torch::Tensor& total, double max_norm);

}  // namespace runner
