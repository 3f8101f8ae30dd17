// Each family's question answering model trained by the runner's Trainer
// against Transformers over 20 steps (tests/model/golden/qa,
// scripts/golden/qa_head_parity.py: the same weights, batches of answer start
// and end positions, some past the sequence, AdamW, schedule, clipping).
#include "golden_loop.h"
#include "../model/qa_golden.h"

using namespace runner;
using namespace runner::test;

namespace {

std::vector<TrainBatch> qa_train_batches(const nlohmann::ordered_json& expected) {
  std::vector<TrainBatch> out;
  for (size_t i = 0; i < expected.at("batches").size(); ++i) {
    TrainBatch t;
    t.tensors = qa_batch(expected, i);
    t.examples = t.tensors.input_ids.size(0);
    t.tokens = t.tensors.attention_mask.sum().item<int64_t>();
    for (long long r = 0; r < t.examples; ++r) t.example_ids.push_back("row/" + std::to_string(i * 8 + r));
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

TEST_CASE("question answering: 20 training steps follow Transformers' loss and gradient norm", "[train][qa]") {
  at::set_num_threads(1);
  for (const auto& family : token_families()) {
    INFO(family);
    const auto expected = qa_expected(family);
    GoldenData data{FixedBatches(qa_train_batches(expected)), {}};
    auto model = load_model_folder(qa_golden("tiny_" + family)).model;
    Trainer trainer(golden_trainer_config(GoldenLoop{}), model, golden_adamw(*model), golden_schedule(),
                    data.batches, nullptr, std::vector<Logger*>{&data.capture});
    REQUIRE(trainer.total_steps() == 20);
    trainer.train();
    const auto got = data.capture.of("train");
    const auto& steps = expected.at("trajectory");
    REQUIRE(got.size() == steps.size());
    // fp32, the same ops as Transformers (padded): the token heads' trajectories
    // agree to 1e-5 relative over the same 20 steps of this loop, and this head
    // is the same GEMM of K = 32 per token with two outputs.
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
