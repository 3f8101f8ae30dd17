// Low-rank adapters (LoRA) on a model's Linear layers, as Hugging Face PEFT's
// LoraLayer adds them: the Linear keeps its weight and bias untouched and its
// output gains B(A(dropout(x))) * scale, with A [r, in] drawn as PEFT draws it
// (kaiming_uniform, a = sqrt(5)) and B [out, r] zero, so the adapted model
// starts equal to the base. The adapter hangs on the Linear itself as
// "lora_A", "lora_B" and "lora_dropout", so that named_parameters() gives
// PEFT's names ("bert.encoder.layer.0.attention.self.query.lora_A.weight").
#pragma once

#include "model/lora_options.h"
#include "model/model.h"

#include <string>
#include <vector>

namespace runner {

// The adapter's factor and input dropout, registered as "lora_dropout" beside
// lora_A and lora_B (it has no parameters of its own).
class LoraBranchImpl : public torch::nn::Module {
 public:
  LoraBranchImpl(torch::nn::Linear down, torch::nn::Linear up, double scale, double dropout);
  // y + B(A(dropout(x))) * scale in y's columns from `column` on (y [..., width]
  // the base layer's output, x [..., in]); in place where model/dense.h's
  // dense_accumulate applies.
  torch::Tensor add_delta(torch::Tensor y, int64_t column, const torch::Tensor& x);

  torch::nn::Linear down, up;  // lora_A, lora_B
  double scale, dropout;
};
TORCH_MODULE(LoraBranch);

// The adapter `layer` carries, or nullptr.
LoraBranchImpl* lora_branch_of(const torch::nn::Linear& layer);

// y = x W^T + b (model/dense.h), plus the adapter's delta when `layer` has one.
// Every family's Linear layers run through it.
torch::Tensor linear_forward(const torch::nn::Linear& layer, const torch::Tensor& x);

// What attach_lora did, for the run's log and the adapter export.
struct LoraReport {
  bool enabled = false;
  std::vector<std::string> adapted;          // module paths given adapters
  std::vector<std::string> trained_in_full;  // parameter names trained whole (not adapters)
  long long trainable = 0, total = 0;        // parameter element counts
};

// Gives every Linear that settings.target_modules (empty: the family preset)
// names an adapter, then freezes every parameter except the adapters, the
// modules_to_save, the biases `settings.bias` names and `newly_initialised`
// (the names the pretrained weights lacked: a new classifier trains whole).
// A target or module_to_save that names nothing is an InputError naming the
// key, the family's Linear module names and the nearest one.
LoraReport attach_lora(TaskModel& model, const LoraSettings& settings, const std::string& model_type,
                       const std::vector<std::string>& newly_initialised);

// PEFT's merge_and_unload: every adapted Linear's weight becomes W + scale B A
// (summed in float64 and rounded once to the weight's type, so it is the
// nearest float to the exact sum) and its adapter modules go, leaving the base
// architecture. Returns the merged module paths.
std::vector<std::string> merge_lora(TaskModel& model);

}  // namespace runner
