// The RoBERTa, DeBERTa-v2 and ModernBERT families trained by the runner's Trainer against
// Transformers over 20 steps (tests/model/golden/<family>_parity.json,
// scripts/golden/family_parity.py: the same weights, batches, AdamW, schedule
// and clipping), and the exports that scripts/golden/family_export_check.py
// loads in Transformers.
#include "golden_loop.h"

#include "model/export.h"

#include <fstream>

using namespace runner;
using namespace runner::test;

namespace {

std::string family_golden(const std::string& rel) { return source_dir() + "/tests/model/golden/" + rel; }

nlohmann::json parity_json(const std::string& family) {
  std::ifstream in(family_golden(family + "_parity.json"));
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

torch::Tensor matrix(const nlohmann::json& rows) {
  std::vector<int64_t> flat;
  for (const auto& r : rows)
    for (const auto& v : r) flat.push_back(v.get<int64_t>());
  return torch::tensor(flat, torch::kInt64).view({static_cast<int64_t>(rows.size()), -1});
}

std::vector<TrainBatch> golden_batches_of(const nlohmann::json& golden) {
  std::vector<TrainBatch> out;
  for (const auto& b : golden.at("batches")) {
    TrainBatch t;
    t.tensors.input_ids = matrix(b.at("input_ids"));
    t.tensors.attention_mask = matrix(b.at("attention_mask"));
    t.tensors.token_type_ids = torch::zeros_like(t.tensors.input_ids);
    t.tensors.labels = torch::tensor(b.at("labels").get<std::vector<int64_t>>(), torch::kInt64);
    t.examples = t.tensors.input_ids.size(0);
    t.tokens = t.tensors.attention_mask.sum().item<int64_t>();
    for (long long i = 0; i < t.examples; ++i) t.example_ids.push_back("row/" + std::to_string(out.size() * 8 + i));
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

TEST_CASE("roberta, deberta-v2 and modernbert: 20 training steps follow Transformers' loss and gradient norm",
          "[train][roberta]") {
  at::set_num_threads(1);
  for (const std::string family : {"roberta", "deberta-v2", "modernbert"}) {
    INFO(family);
    const nlohmann::json golden = parity_json(family);
    GoldenData data{FixedBatches(golden_batches_of(golden)), {}};
    auto model = load_model_folder(family_golden("tiny_" + family)).model;
    model->set_execution(Execution::Padded);
    Trainer trainer(golden_trainer_config(GoldenLoop{}), model, golden_adamw(*model), golden_schedule(),
                    data.batches, nullptr, std::vector<Logger*>{&data.capture});
    REQUIRE(trainer.total_steps() == 20);
    trainer.train();
    const auto got = data.capture.of("train");
    const nlohmann::json& steps = golden.at("trajectory");
    REQUIRE(got.size() == steps.size());
    // fp32, the same ops in the same order as Transformers: the BERT trajectory
    // (test_trajectory) agrees to 1e-5 relative over 20 steps of the same loop;
    // these models are smaller (2 layers of width 32), so no step has more roundings.
    for (size_t i = 0; i < steps.size(); ++i) {
      INFO("step " << i + 1);
      CHECK(got[i]["loss"].get<double>() == Approx(steps[i]["loss"].get<double>()).epsilon(1e-5));
      CHECK(got[i]["grad_norm"].get<double>() == Approx(steps[i]["grad_norm_preclip"].get<double>()).epsilon(1e-5));
    }
    // The trained model's export and its logits on batch 0, for the Transformers check.
    const std::string dir = tmp_dir(family + "_export");
    save_pretrained(*model, dir + "/model");
    model->eval();
    torch::NoGradGuard no_grad;
    auto logits = model->forward(golden_batches_of(golden).at(0).tensors).logits.to(torch::kFloat64).contiguous();
    std::vector<double> flat(logits.data_ptr<double>(), logits.data_ptr<double>() + logits.numel());
    std::ofstream(dir + "/logits.json") << nlohmann::json(flat).dump();
  }
}
