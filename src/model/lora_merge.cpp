#include "model/lora_merge.h"

#include <algorithm>
#include <cmath>

namespace runner {
namespace {

// Two rows of 16 tokens, the second with 5 of padding, ids spread over the
// vocabulary: no data needed, the same batch at every export.
ModelBatch probe_batch(TaskModel& model) {
  const long long vocab = std::max(2LL, model.hf_config().value("vocab_size", 2LL));
  ModelBatch b;
  b.input_ids = torch::empty({2, 16}, torch::kInt64);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 16; ++j) b.input_ids[i][j] = static_cast<int64_t>((7 + 13 * j + 101 * i) % vocab);
  b.attention_mask = torch::ones({2, 16}, torch::kInt64);
  b.attention_mask[1].narrow(0, 11, 5).zero_();
  b.token_type_ids = torch::zeros({2, 16}, torch::kInt64);
  return b;
}

// Logits in float64; a token head's padding positions zeroed (the packed path leaves them zero).
torch::Tensor logits_of(TaskModel& model, const ModelBatch& batch, Execution execution) {
  torch::NoGradGuard no_grad;
  model.set_execution(execution);
  torch::Tensor logits = model.forward(batch).logits.to(torch::kFloat64);
  if (logits.dim() == 3) logits = logits * batch.attention_mask.unsqueeze(-1).to(torch::kFloat64);
  return logits;
}

double largest(const torch::Tensor& t) { return t.abs().max().item<double>(); }

}  // namespace

MergeCheck merge_and_compare(TaskModel& adapted, const std::function<void(TaskModel&)>& merge) {
  const Execution was = adapted.execution();
  adapted.eval();
  const ModelBatch batch = probe_batch(adapted);
  const torch::Tensor padded = logits_of(adapted, batch, Execution::Padded);
  const torch::Tensor packed = logits_of(adapted, batch, Execution::Unpadded);
  merge(adapted);
  const torch::Tensor merged = logits_of(adapted, batch, Execution::Padded);
  adapted.set_execution(was);
  // The merged model computes the adapter model's function with each merged
  // weight rounded once more (2^-24 of it), an error of the kind another
  // summation order makes: the padded and packed paths of the same model
  // measure that noise on this batch. 16 x it (the ratio the data-parallel
  // equivalence tests allow), or 16 roundings of the largest logit when the two
  // paths agree to the bit.
  MergeCheck c;
  c.difference = largest(merged - padded);
  c.bound = std::max(16 * largest(padded - packed), 16 * std::ldexp(1.0, -24) * std::max(1.0, largest(padded)));
  return c;
}

}  // namespace runner
