// The RoBERTa, DeBERTa-v2 and ModernBERT families against Transformers'
// ...ForSequenceClassification on tiny random-init models (tests/model/golden/tiny_<family>, <family>_parity.json,
// made by scripts/golden/family_parity.py): logits, loss and gradients, the
// position ids worked by hand, the unpadded path, and the saved folder.
#include "catch.h"

#include "golden.h"
#include "model/export.h"
#include "model/model_factory.h"
#include "model/deberta_v2.h"
#include "model/modernbert.h"
#include "model/roberta.h"

#include <fstream>

using namespace runner;
using runner::test::max_abs_diff;
using runner::test::rel_err;

namespace {

std::string family_golden(const std::string& rel) { return test::source_dir() + "/tests/model/golden/" + rel; }

const std::vector<std::string> kFamilies = {"roberta", "deberta-v2", "modernbert"};

nlohmann::json parity_json(const std::string& family = "roberta") {
  return test::read_json(family_golden(family + "_parity.json"));
}

ModelBatch batch_from(const nlohmann::json& b) {
  ModelBatch out;
  out.input_ids = test::int_matrix(b.at("input_ids"));
  out.attention_mask = test::int_matrix(b.at("attention_mask"));
  out.token_type_ids = torch::zeros_like(out.input_ids);
  out.labels = torch::tensor(b.at("labels").get<std::vector<int64_t>>(), torch::kInt64);
  return out;
}

std::shared_ptr<TaskModel> tiny_model(const std::string& family = "roberta") {
  LoadedModel loaded = load_model_folder(family_golden("tiny_" + family));
  REQUIRE(loaded.component == family);
  return loaded.model;
}

// A parameter whose gradient is zero in exact arithmetic: RoBERTa's key bias,
// which adds q . bias to a query's every score, and the softmax over keys
// ignores a constant. (DeBERTa's key bias also enters the position-to-content
// scores, which vary with the key, so it has a gradient there.)
bool zero_gradient(const std::string& family, const std::string& name) {
  return family == "roberta" && name.find("attention.self.key.bias") != std::string::npos;
}

}  // namespace

TEST_CASE("roberta: position ids count non-pad tokens from pad_token_id + 1", "[model][roberta]") {
  // <s> a b </s> <pad> <pad> with pad id 1: positions 2 3 4 5, pads at 1.
  auto ids = torch::tensor({0, 5, 6, 2, 1, 1, 0, 7, 2, 1, 1, 1}, torch::kInt64).view({2, 6});
  auto want = torch::tensor({2, 3, 4, 5, 1, 1, 2, 3, 4, 1, 1, 1}, torch::kInt64).view({2, 6});
  CHECK(torch::equal(roberta_position_ids(ids, 1), want));
}

TEST_CASE("deberta-v2: relative positions stay within +-mid and share log buckets past it", "[model][roberta]") {
  // 16 buckets (mid 8) over 64 positions: a distance d past 8 goes to
  // 8 + ceil(ln(d / 8) / ln(63 / 8) * 7), with ln(63 / 8) = 2.063693:
  // d = 9: 8 + ceil(0.1178 / 2.0637 * 7 = 0.3995) = 9; d = 20: 8 + ceil(3.1081) = 12;
  // d = 63: 8 + ceil(7) = 15; the sign follows the direction.
  auto rel = deberta_relative_positions(64, 16, 64, torch::kCPU);
  CHECK(rel[5][0].item<int64_t>() == 5);
  CHECK(rel[0][5].item<int64_t>() == -5);
  CHECK(rel[8][0].item<int64_t>() == 8);
  CHECK(rel[9][0].item<int64_t>() == 9);
  CHECK(rel[20][0].item<int64_t>() == 12);
  CHECK(rel[0][20].item<int64_t>() == -12);
  CHECK(rel[63][0].item<int64_t>() == 15);
  CHECK(rel[30][30].item<int64_t>() == 0);
  // Without buckets the distance is plain.
  CHECK(deberta_relative_positions(64, -1, 64, torch::kCPU)[40][0].item<int64_t>() == 40);
}

TEST_CASE("modernbert: rotary angles are position times theta^(-2i/d), both halves alike", "[model][roberta]") {
  // head_dim 4, theta 10000: inverse frequencies 1 and 10000^(-1/2) = 0.01.
  auto [cos, sin] = rotary_tables(3, 4, 10000.0, torch::kCPU);
  REQUIRE(cos.sizes() == std::vector<int64_t>({3, 4}));
  // float32 angles and their cos/sin: within a few 2^-24 of the exact values.
  CHECK(std::abs(cos[0][0].item<double>() - 1.0) < 1e-6);
  CHECK(std::abs(sin[0][3].item<double>()) < 1e-6);
  CHECK(std::abs(cos[2][0].item<double>() - std::cos(2.0)) < 1e-6);
  CHECK(std::abs(sin[2][1].item<double>() - std::sin(0.02)) < 1e-6);
  CHECK(std::abs(sin[2][3].item<double>() - std::sin(0.02)) < 1e-6);  // the second half repeats the first
}

TEST_CASE("roberta, deberta-v2 and modernbert: logits, loss and every gradient norm match Transformers", "[model][roberta]") {
  test::ThreadsGuard one_thread;
  for (const auto& family : kFamilies) {
    INFO(family);
    const nlohmann::json golden = parity_json(family);
    const nlohmann::json& want = golden.at("forward");
    ModelBatch batch = batch_from(golden.at("batches").at(0));
    auto model = tiny_model(family);
    model->set_execution(Execution::Padded);
    model->eval();
    {
      torch::NoGradGuard no_grad;
      ModelOutput out = model->forward(batch);
      // fp32 with summation orders that differ between LibTorch 1.13 and torch 2.x:
      // each of ~20 sequential reductions of at most 64 terms adds about
      // sqrt(64) * 2^-24 = 4.8e-7 relative, sqrt(20) of them 2.1e-6, on hidden values
      // of order 1-4 (LayerNorm outputs, weights of std 0.2): 1e-5 absolute on the logits.
      CHECK(max_abs_diff(out.logits, test::float_tensor(want.at("logits"))) <= 1e-5);
      CHECK(rel_err(out.loss.item<double>(), want.at("loss").get<double>()) <= 1e-5);
    }
    model->train();  // dropout is 0 in these configs: train mode changes nothing else
    model->forward(batch).loss.backward();
    // The backward pass doubles the reductions and sums over up to 8 * 49 = 392
    // tokens (sqrt(392) * 2^-24 = 1.2e-6 each, sqrt(40) of them 7.4e-6); a tenfold
    // margin for small gradients in which those errors do not cancel: 1e-4 relative.
    size_t seen = 0;
    for (const auto& p : model->named_parameters()) {
      INFO(p.key());
      REQUIRE(want.at("grad_norms").contains(p.key()));
      const double got_norm = p.value().grad().norm().item<double>();
      const double want_norm = want.at("grad_norms").at(p.key()).get<double>();
      if (zero_gradient(family, p.key())) {
        // Both sides hold rounding of the score gradients (order 0.1 * 2^-24 * sqrt(392) = 1.2e-7).
        CHECK(got_norm <= 1e-6);
        CHECK(want_norm <= 1e-6);
      } else {
        CHECK(rel_err(got_norm, want_norm) <= 1e-4);
      }
      ++seen;
    }
    CHECK(seen == want.at("grad_norms").size());
  }
}

TEST_CASE("roberta: the unpadded path equals the padded one", "[model][roberta]") {
  ModelBatch batch = batch_from(parity_json().at("batches").at(0));
  auto run = [&](Execution e) {
    auto model = tiny_model();
    model->eval();
    return test::run_in(model, e, batch);
  };
  auto [logits_err, grad_err] = test::check_unpadded_equals_padded(run(Execution::Padded), run(Execution::Unpadded));
  WARN("roberta unpadded vs padded: logits " << logits_err << ", worst gradient " << grad_err);
}

TEST_CASE("roberta, deberta-v2 and modernbert: a saved folder is the family's config.json and reloads bit-identically",
          "[model][roberta]") {
  for (const auto& family : kFamilies) {
    INFO(family);
    auto model = tiny_model(family);
    const std::string dir = test::tmp_dir("family_roundtrip_" + family);
    save_pretrained(*model, dir);
    auto config = test::read_json(dir + "/config.json");
    auto golden_config = test::read_json(family_golden("tiny_" + family + "/config.json"));
    for (const auto& [key, value] : golden_config.items()) {
      INFO(key);
      // Keys Transformers writes for every model and the runner has no use for.
      if (key == "transformers_version" || key == "dtype" || key == "add_cross_attention" ||
          key == "is_decoder" || key == "use_cache" || key == "tie_word_embeddings" || key == "legacy")
        continue;
      if (key == "global_attn_every_n_layers") continue;  // written as the layer_types it gives
      if (key == "bos_token_id" || key == "eos_token_id" || key == "classifier_dropout") {
        if (config.contains(key)) CHECK(config.at(key) == value);
        continue;
      }
      CHECK(config.at(key) == value);
    }
    auto again = load_model_folder(dir);
    CHECK(again.component == family);
    auto a = model->named_parameters(), b = again.model->named_parameters();
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].key() == b[i].key());
      CHECK(torch::equal(a[i].value(), b[i].value()));
    }
  }
}

TEST_CASE("roberta: a random init zeroes the padding rows, as Transformers does", "[model][roberta]") {
  torch::manual_seed(3);
  auto model = make_model({{"type", "roberta"}, {"preset", "roberta-base"}, {"num_hidden_layers", 1},
                           {"hidden_size", 32}, {"num_attention_heads", 4}, {"intermediate_size", 64}},
                          ModelContext{2, {}});
  auto params = model->named_parameters();
  CHECK(params["roberta.embeddings.word_embeddings.weight"][1].abs().max().item<double>() == 0.0);
  CHECK(params["roberta.embeddings.position_embeddings.weight"][1].abs().max().item<double>() == 0.0);
  CHECK(params["roberta.embeddings.position_embeddings.weight"][2].abs().max().item<double>() > 0.0);
  CHECK(params["classifier.out_proj.weight"].size(0) == 2);
}
