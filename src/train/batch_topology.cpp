// Why another split of the same global batch continues a run exactly: the
// sampler deals the epoch's global order to the workers round-robin (torch's
// DistributedSampler), so worker r's micro-batch b holds global positions
// (b*B + j)*W + r for j < B. An optimizer step is A consecutive micro-batches
// on every worker: global positions [s*G, (s+1)*G) with G = W*B*A, the same
// set for every (W, B, A) of equal G. The gradient is the mean over those G
// examples either way (micro-batch losses / A, then averaged over W). Only the
// epoch's last step can differ: DistributedSampler repeats examples to fill
// the last round of W, which depends on W.
#include "train/batch_topology.h"

#include <fmt/format.h>

#include <vector>

namespace runner {

std::string BatchTopology::str() const {
  return fmt::format("{} process(es) x train_batch_size {} x grad_accum {} = {} examples per step",
                     world, rank_batch, grad_accum, global_batch());
}

std::optional<Diagnostic> topology_change_error(const BatchTopology& then, const BatchTopology& now) {
  const long long global = then.global_batch();
  if (now.global_batch() == global) return std::nullopt;
  std::vector<std::string> fixes;
  if (global % (now.world * now.rank_batch) == 0)
    fixes.push_back(fmt::format("set train.grad_accum = {}", global / (now.world * now.rank_batch)));
  if (global % (now.world * now.grad_accum) == 0)
    fixes.push_back(fmt::format("set data.train_batch_size = {}", global / (now.world * now.grad_accum)));
  std::string hint;
  for (const auto& f : fixes) hint += (hint.empty() ? "" : ", or ") + f;
  if (!hint.empty()) hint += fmt::format(" (keeps {} examples per step on {} process(es)), or ", global, now.world);
  hint += fmt::format("resume on {} process(es) with train_batch_size {} and grad_accum {}", then.world,
                      then.rank_batch, then.grad_accum);
  return make_error({}, "topology",
                    fmt::format("the checkpoint was written by {}, and this run has {}; a run continues "
                                "its data order and position only under the same global batch",
                                then.str(), now.str()),
                    hint);
}

long long convert_batch_in_epoch(long long batch_in_epoch, const BatchTopology& then,
                                 const BatchTopology& now) {
  if (then == now) return batch_in_epoch;
  const long long examples = batch_in_epoch * then.world * then.rank_batch;  // of the global order
  const long long per_micro = now.world * now.rank_batch;
  if (examples % per_micro != 0 || (examples / per_micro) % now.grad_accum != 0)
    throw InputError(make_error({}, "topology",
                                fmt::format("the checkpoint stands {} examples into its epoch, which is "
                                            "not an optimizer step boundary of {}",
                                            examples, now.str()),
                                "resume with the topology that wrote the checkpoint"));
  return examples / per_micro;
}

}  // namespace runner
