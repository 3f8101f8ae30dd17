// Each family's question answering model trained by the runner's Trainer
// against Transformers over 20 steps (tests/model/golden/qa,
// scripts/golden/qa_head_parity.py: the same weights, batches of answer start
// and end positions, some past the sequence, AdamW, schedule, clipping).
#include "token_trajectory.h"
#include "../model/qa_golden.h"

using namespace runner;
using namespace runner::test;

TEST_CASE("question answering: 20 training steps follow Transformers' loss and gradient norm", "[train][qa]") {
  at::set_num_threads(1);
  for (const auto& family : token_families()) {
    INFO(family);
    const auto expected = qa_expected(family);
    const auto steps =
        golden_folder_train_steps(qa_golden("tiny_" + family), golden_train_batches(expected, qa_batch));
    // fp32, the same ops as Transformers (padded): the token heads' trajectories
    // agree to 1e-5 relative over the same 20 steps of this loop, and this head
    // is the same GEMM of K = 32 per token with two outputs.
    const double worst = check_trajectory(steps, expected.at("trajectory"), 1e-5).loss;
    WARN(family << ": worst step loss relative " << worst);
  }
}
