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
    GoldenData data{FixedBatches(token_train_batches(expected)), {}};
    auto model = load_model_folder(token_golden("tiny_" + family)).model;
    Trainer trainer(golden_trainer_config(GoldenLoop{}), model, golden_adamw(*model), golden_schedule(),
                    data.batches, nullptr, std::vector<Logger*>{&data.capture});
    REQUIRE(trainer.total_steps() == 20);
    trainer.train();
    // fp32, the same ops as Transformers in the default (packed) execution: the
    // sequence families' trajectories agree to 1e-5 relative over the same 20
    // steps of this loop, and a token head adds one GEMM of K = 32 per token.
    const double worst = check_trajectory(data.capture.of("train"), expected.at("trajectory"), 1e-5).loss;
    WARN(family << ": worst step loss relative " << worst);
  }
}
