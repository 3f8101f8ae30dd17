// The RoBERTa family against Transformers' RobertaForSequenceClassification on a
// tiny random-init model (tests/model/golden/tiny_roberta, roberta_parity.json,
// made by scripts/golden/roberta_parity.py): logits, loss and gradients, the
// position ids worked by hand, the unpadded path, and the saved folder.
#include "catch.h"

#include "golden.h"
#include "model/export.h"
#include "model/model_factory.h"
#include "model/roberta.h"

#include <fstream>

using namespace runner;
using runner::test::max_abs_diff;
using runner::test::rel_err;

namespace {

std::string roberta_golden(const std::string& rel) { return test::source_dir() + "/tests/model/golden/" + rel; }

nlohmann::json parity_json() { return test::read_json(roberta_golden("roberta_parity.json")); }

ModelBatch batch_from(const nlohmann::json& b) {
  ModelBatch out;
  out.input_ids = test::int_matrix(b.at("input_ids"));
  out.attention_mask = test::int_matrix(b.at("attention_mask"));
  out.token_type_ids = torch::zeros_like(out.input_ids);
  out.labels = torch::tensor(b.at("labels").get<std::vector<int64_t>>(), torch::kInt64);
  return out;
}

std::shared_ptr<SequenceClassifier> tiny_roberta() {
  LoadedModel loaded = load_model_folder(roberta_golden("tiny_roberta"));
  REQUIRE(loaded.component == "roberta");
  return loaded.model;
}

}  // namespace

TEST_CASE("roberta: position ids count non-pad tokens from pad_token_id + 1", "[model][roberta]") {
  // <s> a b </s> <pad> <pad> with pad id 1: positions 2 3 4 5, pads at 1.
  auto ids = torch::tensor({0, 5, 6, 2, 1, 1, 0, 7, 2, 1, 1, 1}, torch::kInt64).view({2, 6});
  auto want = torch::tensor({2, 3, 4, 5, 1, 1, 2, 3, 4, 1, 1, 1}, torch::kInt64).view({2, 6});
  CHECK(torch::equal(roberta_position_ids(ids, 1), want));
}

TEST_CASE("roberta: logits, loss and every gradient norm match Transformers", "[model][roberta]") {
  test::ThreadsGuard one_thread;
  const nlohmann::json golden = parity_json();
  const nlohmann::json& want = golden.at("forward");
  ModelBatch batch = batch_from(golden.at("batches").at(0));
  auto model = tiny_roberta();
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
  model->train();  // dropout is 0 in this config: train mode changes nothing else
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
    if (p.key().find("attention.self.key.bias") != std::string::npos) {
      // Zero in exact arithmetic: the softmax over keys ignores the constant
      // q . bias that the key bias adds to a query's every score. Both sides hold
      // rounding of the score gradients (order 0.1 * 2^-24 * sqrt(392) = 1.2e-7).
      CHECK(got_norm <= 1e-6);
      CHECK(want_norm <= 1e-6);
    } else {
      CHECK(rel_err(got_norm, want_norm) <= 1e-4);
    }
    ++seen;
  }
  CHECK(seen == want.at("grad_norms").size());
}

TEST_CASE("roberta: the unpadded path equals the padded one", "[model][roberta]") {
  ModelBatch batch = batch_from(parity_json().at("batches").at(0));
  auto run = [&](Execution e) {
    auto model = tiny_roberta();
    model->eval();
    return test::run_in(model, e, batch);
  };
  auto [logits_err, grad_err] = test::check_unpadded_equals_padded(run(Execution::Padded), run(Execution::Unpadded));
  WARN("roberta unpadded vs padded: logits " << logits_err << ", worst gradient " << grad_err);
}

TEST_CASE("roberta: a saved folder is RoBERTa's config.json and reloads bit-identically", "[model][roberta]") {
  auto model = tiny_roberta();
  const std::string dir = test::tmp_dir("roberta_roundtrip");
  save_pretrained(*model, dir);
  auto config = test::read_json(dir + "/config.json");
  auto golden_config = test::read_json(roberta_golden("tiny_roberta/config.json"));
  for (const char* key : {"model_type", "architectures", "vocab_size", "hidden_size", "num_hidden_layers",
                          "max_position_embeddings", "type_vocab_size", "pad_token_id", "bos_token_id",
                          "eos_token_id", "layer_norm_eps"}) {
    INFO(key);
    CHECK(config.at(key) == golden_config.at(key));
  }
  auto again = load_model_folder(dir);
  CHECK(again.component == "roberta");
  auto a = model->named_parameters(), b = again.model->named_parameters();
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].key() == b[i].key());
    CHECK(torch::equal(a[i].value(), b[i].value()));
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
