// The RoBERTa, DeBERTa-v2 and ModernBERT families trained by the runner's Trainer against
// Transformers over 20 steps (tests/model/golden/<family>_parity.json,
// scripts/golden/family_parity.py: the same weights, batches, AdamW, schedule
// and clipping), and the exports that scripts/golden/family_export_check.py
// loads in Transformers.
#include "golden_loop.h"

#include "model/export.h"

#include <cmath>
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

// bf16 keeps 8 significant bits: each rounding of a value is off by at most
// 2^-9 of it, and a product of two rounded inputs by 2 x 2^-9 = 2^-8.
constexpr double kBf16Product = 1.0 / 256;

// The products of rounded inputs on the path from the embeddings to a logit; to
// first order their relative errors add, and a loss or gradient norm, smooth
// functions of the logits, moves by at most as much relative. LayerNorm
// renormalises after every sublayer, so this overestimates. Two layers each:
//   roberta: q, k, v, scores, context, output, FFN in, FFN out (8), then the
//     head's dense and out_proj: 2 x 8 + 2 = 18;
//   deberta-v2: q, k, v, content scores, the relative embeddings' key and query
//     projections, c2p and p2c scores, context, output, FFN in, FFN out (12),
//     then the pooler and the classifier: 2 x 12 + 2 = 26;
//   modernbert: Wqkv, scores, context, Wo, Wi, the MLP's Wo (6), then the head's
//     dense and the classifier: 2 x 6 + 2 = 14.
double bf16_trajectory_bound(const std::string& family) {
  if (family == "roberta") return 18 * kBf16Product;
  if (family == "deberta-v2") return 26 * kBf16Product;
  return 14 * kBf16Product;
}

double rel(double got, double want) { return std::abs(got - want) / std::abs(want); }

}  // namespace

TEST_CASE("roberta, deberta-v2 and modernbert: 20 bf16 steps follow Accelerate's mixed_precision=\"bf16\"",
          "[train][roberta][mixed_precision]") {
  at::set_num_threads(1);
  for (const std::string family : {"roberta", "deberta-v2", "modernbert"}) {
    INFO(family);
    const nlohmann::json golden = parity_json(family);
    std::ifstream in(family_golden(family + "_bf16_trajectory.json"));
    REQUIRE(in);
    const nlohmann::json steps = nlohmann::json::parse(in).at("trajectory");
    GoldenData data{FixedBatches(golden_batches_of(golden)), {}};
    auto model = load_model_folder(family_golden("tiny_" + family)).model;
    model->set_execution(Execution::Padded);
    GoldenLoop loop;
    loop.precision = Precision::Bf16;
    Trainer trainer(golden_trainer_config(loop), model, golden_adamw(*model), golden_schedule(), data.batches,
                    nullptr, std::vector<Logger*>{&data.capture});
    trainer.train();
    const auto got = data.capture.of("train");
    REQUIRE(got.size() == steps.size());
    const double bound = bf16_trajectory_bound(family);
    double worst_loss = 0, worst_norm = 0, off_fp32 = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
      off_fp32 = std::max(off_fp32, rel(got[i]["loss"], golden.at("trajectory")[i]["loss"]));
      const double loss = rel(got[i]["loss"], steps[i]["loss"]),
                   norm = rel(got[i]["grad_norm"], steps[i]["grad_norm_preclip"]);
      INFO("step " << i + 1 << ": loss " << got[i]["loss"] << " vs " << steps[i]["loss"] << ", grad norm "
                   << got[i]["grad_norm"] << " vs " << steps[i]["grad_norm_preclip"]);
      CHECK(loss <= bound);
      CHECK(norm <= bound);
      CHECK(got[i]["lr"].get<double>() == Approx(steps[i]["lr"].get<double>()).epsilon(1e-6).margin(1e-12));
      worst_loss = std::max(worst_loss, loss), worst_norm = std::max(worst_norm, norm);
    }
    // The fp32 run agrees with the fp32 golden to 1e-5 relative (the test below):
    // a bf16 run that lies further away has really run its matmuls in bf16.
    CHECK(off_fp32 > 1e-5);
    WARN(family << " bf16 vs Accelerate: worst step loss " << worst_loss << ", grad norm " << worst_norm
                << " relative (bound " << bound << ")");
  }
}

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
