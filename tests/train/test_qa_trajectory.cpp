// Each family's question answering model trained by the runner's Trainer
// against Transformers over 20 steps (tests/model/golden/qa,
// scripts/golden/qa_head_parity.py: the same weights, batches of answer start
// and end positions, some past the sequence, AdamW, schedule, clipping), with
// Transformers' loss over every padded position and with the loss over each
// row's tokens that a recipe trains by default.
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

TEST_CASE("question answering over each row's tokens, packed: 20 steps follow Transformers with the padding masked",
          "[train][qa]") {
  at::set_num_threads(1);
  for (const auto& family : token_families()) {
    INFO(family);
    const auto expected = qa_expected(family);
    const auto steps = golden_folder_train_steps(qa_golden("tiny_" + family),
                                                 golden_train_batches(expected, qa_batch), [](TaskModel& m) {
                                                   m.set_loss_over_padding(false);
                                                   m.set_execution(Execution::Unpadded);
                                                 });
    // fp32 as above; the packed layers sum the same products per token, and the
    // softmax's padding terms are exactly 0 on both sides.
    const double worst = check_trajectory(steps, qa_tokens_expected(family).at("trajectory"), 1e-5).loss;
    WARN(family << ": worst step loss relative " << worst);
  }
}
