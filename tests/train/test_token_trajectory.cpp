// Each family's token-classification model trained by the runner's Trainer
// against Transformers over 20 steps (tests/model/golden/token,
// scripts/golden/token_classification_parity.py: the same weights, batches of
// per-token labels with -100 where nothing is scored, AdamW, schedule, clipping).
#include "golden_loop.h"
#include "../model/token_golden.h"

using namespace runner;
using namespace runner::test;

namespace {

std::vector<TrainBatch> token_train_batches(const nlohmann::ordered_json& expected) {
  std::vector<TrainBatch> out;
  for (size_t i = 0; i < expected.at("batches").size(); ++i) {
    TrainBatch t;
    t.tensors = token_batch(expected, i);
    t.examples = t.tensors.input_ids.size(0);
    t.tokens = t.tensors.attention_mask.sum().item<int64_t>();
    for (long long r = 0; r < t.examples; ++r) t.example_ids.push_back("row/" + std::to_string(i * 8 + r));
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

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
    const auto got = data.capture.of("train");
    const auto& steps = expected.at("trajectory");
    REQUIRE(got.size() == steps.size());
    // fp32, the same ops as Transformers in the default (packed) execution: the
    // sequence families' trajectories agree to 1e-5 relative over the same 20
    // steps of this loop, and a token head adds one GEMM of K = 32 per token.
    double worst = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
      INFO("step " << i + 1);
      const double loss = steps[i].at("loss"), norm = steps[i].at("grad_norm_preclip");
      CHECK(got[i]["loss"].get<double>() == Approx(loss).epsilon(1e-5));
      CHECK(got[i]["grad_norm"].get<double>() == Approx(norm).epsilon(1e-5));
      worst = std::max(worst, std::abs(got[i]["loss"].get<double>() - loss) / loss);
    }
    WARN(family << ": worst step loss relative " << worst);
  }
}
