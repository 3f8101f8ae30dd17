// Each family's token-classification model trained by the runner's Trainer
// against Transformers over 20 steps (tests/model/golden/token,
// scripts/golden/token_classification_parity.py: the same weights, batches of
// per-token labels with -100 where nothing is scored, AdamW, schedule, clipping).
#include "token_trajectory.h"

using namespace runner;
using namespace runner::test;

TEST_CASE("token classification: 20 training steps follow Transformers' loss and gradient norm",
          "[train][tokens]") {
  at::set_num_threads(1);
  for (const auto& family : token_families()) {
    INFO(family);
    const auto expected = token_expected(family);
    const auto steps = golden_folder_train_steps(token_golden("tiny_" + family), token_train_batches(expected));
    // fp32, the same ops as Transformers in the default (packed) execution: the
    // sequence families' trajectories agree to 1e-5 relative over the same 20
    // steps of this loop, and a token head adds one GEMM of K = 32 per token.
    const double worst = check_trajectory(steps, expected.at("trajectory"), 1e-5).loss;
    WARN(family << ": worst step loss relative " << worst);
  }
}
