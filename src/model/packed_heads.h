// The loop that packed attention kernels share: one task per (sequence, head)
// over LibTorch's intra-op threads, each task with its own scratch, and where
// each task's [n, n] probabilities lie in the buffer kept for the backward.
#pragma once

#include "model/packed_attention.h"

#include <ATen/Parallel.h>

#include <vector>

namespace runner {

// Where each (sequence, head)'s [n, n] probabilities start in the kept buffer.
inline std::vector<int64_t> probs_offsets(const PackedSequences& s, int64_t heads) {
  const int64_t* starts = s.starts.data_ptr<int64_t>();
  const int64_t batch = s.starts.numel() - 1;
  std::vector<int64_t> offsets(batch * heads + 1, 0);
  for (int64_t task = 0; task < batch * heads; ++task) {
    const int64_t n = starts[task / heads + 1] - starts[task / heads];
    offsets[task + 1] = offsets[task] + n * n;
  }
  return offsets;
}

// Runs `each(task, first_token, head_task, scratch)` for every (sequence, head)
// with a token, task = sequence * heads + head; `scratch_floats(sequence, n)`
// sizes its scratch. Each task writes only its own rows, so the split over
// threads changes no value.
template <typename Size, typename Each>
void for_each_head(const PackedSequences& s, int64_t heads, const Size& scratch_floats, const Each& each) {
  const int64_t* starts = s.starts.data_ptr<int64_t>();
  const int64_t* columns = s.columns.data_ptr<int64_t>();
  const int64_t batch = s.starts.numel() - 1, length = s.padded_length;
  at::parallel_for(0, batch * heads, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> scratch;
    for (int64_t task = begin; task < end; ++task) {
      const int64_t b = task / heads, first = starts[b], n = starts[b + 1] - first;
      if (n == 0) continue;
      scratch.resize(scratch_floats(b, n));
      const HeadTask t{n, columns + first, uint64_t(task) * uint64_t(length * length), length};
      each(task, first, t, scratch.data());
    }
  });
}

}  // namespace runner
