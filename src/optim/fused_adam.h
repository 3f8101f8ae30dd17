// Adam/AdamW over one float32 parameter in a single pass over its memory: the
// arithmetic of torch 1.13's _single_tensor_adam(w) element by element, in the
// same float operations and order, without its eight full-size passes and two
// parameter-sized temporaries (on BERT-Mini the word embeddings are 7.8 M of the
// 11 M parameters, and those temporaries were fresh page-faulted memory each step).
#pragma once

#include <cstdint>

namespace runner {

// The per-step scalars, rounded to float as ATen rounds a Scalar for a float tensor.
struct AdamScalars {
  bool decoupled = true;      // AdamW: p *= decay_factor; Adam: g += weight_decay * p
  float decay_factor = 1;     // 1 - lr * weight_decay
  float weight_decay = 0;
  float beta1 = 0.9f, one_minus_beta1 = 0.1f, beta2 = 0.999f, one_minus_beta2 = 0.001f;
  float bias_correction2_sqrt = 1, eps = 1e-8f;
  float neg_step_size = 0;    // -lr / bias_correction1
};

// Updates p, exp_avg and exp_avg_sq (n contiguous floats each) in place, over
// LibTorch's intra-op threads.
void fused_adam_step(float* param, const float* grad, float* exp_avg, float* exp_avg_sq,
                     int64_t n, const AdamScalars& s);

}  // namespace runner
