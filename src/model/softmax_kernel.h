// The softmax of attention's per-head kernels, over rows of scores in place.
#pragma once

#include <cstdint>

namespace runner {

// Softmax of each row of x [n, n] in place, as ATen's last-dimension kernel:
// exp(x - max) summed, then multiplied by the sum's reciprocal. A score of
// -inf (a masked pair) gives exactly 0. Where util/kernel_isa.h allows AVX2,
// eight exponentials at a time, each within 2 ulp of e^x (as ATen's own
// vectorised exp is within 1), and the sum in eight lanes.
void softmax_rows(float* x, int64_t n);

}  // namespace runner
