// Base-sized BERT, RoBERTa, DeBERTa-v3 and ModernBERT (hidden 768, 12 heads, the
// base models' widths and position settings, 2 layers, vocab 1000) against
// Transformers: every weight a closed-form function of its name and index
// (closed_form_weights.h), so only the config, the inputs and Transformers'
// logits, loss and gradient norms are committed (tests/model/golden/base_<family>.json,
// scripts/golden/family_base_parity.py). Rows of up to 160 tokens reach
// DeBERTa's log buckets (past 128) and ModernBERT's local window (+-64).
#include "catch.h"

#include "closed_form_weights.h"
#include "golden.h"
#include "model/model.h"
#include "registry/registry.h"

#include <cmath>

using namespace runner;
using runner::test::max_abs_diff;
using runner::test::rel_err;

namespace {

const std::vector<std::string> kFamilies = {"bert", "roberta", "deberta-v2", "modernbert"};

nlohmann::json base_golden(const std::string& family) {
  return test::read_json(test::source_dir() + "/tests/model/golden/base_" + family + ".json");
}

ModelBatch base_batch(const nlohmann::json& golden) {
  const nlohmann::json& b = golden.at("batch");
  ModelBatch out;
  out.input_ids = test::int_matrix(b.at("input_ids"));
  out.attention_mask = test::int_matrix(b.at("attention_mask"));
  out.token_type_ids = torch::zeros_like(out.input_ids);
  out.labels = torch::tensor(b.at("labels").get<std::vector<int64_t>>(), torch::kInt64);
  return out;
}

std::shared_ptr<TaskModel> base_model(const std::string& family, const nlohmann::json& golden) {
  const auto& builder = registry().factory<ModelFamily>(Kind::Model, family);
  auto model = builder.construct(golden.at("config"), Init::None, "base_" + family + ".json");
  torch::NoGradGuard no_grad;
  for (auto& p : model->named_parameters()) p.value().copy_(test::closed_form_weight(p.key(), p.value().sizes()));
  model->set_execution(Execution::Padded);
  return model;
}

// fp32 keeps 24 significant bits: a sum of n rounded terms in any order is off
// from the exact sum by about sqrt(n) 2^-24 of the terms' magnitude (random-walk
// rounding), and errors of successive reductions add in quadrature. The
// reductions on the path to a logit, per layer: the q, k, v projections (h
// terms each), the position projections of DeBERTa (2 h), the scores and
// DeBERTa's c2p and p2c scores (head_dim each), the context (keys), the
// attention output (h), FFN in (h), FFN out (intermediate), two norms' means
// and variances (4 h); then the head's dense and classifier (h each).
double fp32_path_relative(const nlohmann::json& config, double keys) {
  const double h = config.at("hidden_size"), i = config.at("intermediate_size"),
               d = h / config.at("num_attention_heads").get<double>(), layers = config.at("num_hidden_layers");
  const double per_layer = 3 * h + 2 * h + 3 * d + keys + h + h + i + 4 * h;
  return std::sqrt(layers * per_layer + 2 * h) / (1 << 24);
}

// The backward runs each reduction of the forward again (the transposed
// products) and sums every weight's gradient over the batch's token rows.
double fp32_backward_relative(const nlohmann::json& config, double keys, double rows) {
  const double forward = fp32_path_relative(config, keys) * (1 << 24);
  return std::sqrt(2 * forward * forward + rows) / (1 << 24);
}

// Zero in exact arithmetic: BERT's and RoBERTa's key bias adds q . bias to all
// of a query's scores, a constant the softmax over keys ignores. (DeBERTa's key
// bias also enters the position-to-content scores, so it has a gradient.)
bool zero_gradient(const std::string& family, const std::string& name) {
  return (family == "bert" || family == "roberta") && name.find("attention.self.key.bias") != std::string::npos;
}

}  // namespace

TEST_CASE("base-sized bert, roberta, deberta-v2 and modernbert: logits, loss and gradient norms match Transformers",
          "[model][roberta][base_size]") {
  test::ThreadsGuard one_thread;
  for (const auto& family : kFamilies) {
    INFO(family);
    const nlohmann::json golden = base_golden(family);
    auto model = base_model(family, golden);
    // The closed-form weights are the script's: every parameter's norm (float32
    // values summed in float64 in another order: 1e-12 relative is rounding).
    size_t seen = 0;
    for (const auto& p : model->named_parameters()) {
      INFO(p.key());
      REQUIRE(golden.at("param_norms").contains(p.key()));
      CHECK(rel_err(p.value().to(torch::kFloat64).norm().item<double>(), golden["param_norms"][p.key()]) <= 1e-12);
      ++seen;
    }
    CHECK(seen == golden.at("param_norms").size());
    ModelBatch batch = base_batch(golden);
    const double path = fp32_path_relative(golden.at("config"), double(batch.input_ids.size(1)));
    model->eval();
    {
      torch::NoGradGuard no_grad;
      ModelOutput out = model->forward(batch);
      const torch::Tensor want = test::float_tensor(golden.at("logits"));
      const double scale = want.abs().max().item<double>();
      const double diff = max_abs_diff(out.logits, want);
      // The reductions' errors are relative to the values they sum, which the
      // norms hold at order 1 (their gains are 1 +- 0.05), not to a logit, which
      // may be a small difference: the larger of 1 and the largest logit; and a
      // tenfold margin for the ops the count leaves out (softmax, GELU, exp, the
      // rotary products), each one more rounding of 2^-24.
      const double bound = 10 * path * std::max(1.0, scale);
      WARN(family << ": logits " << diff << " abs off (bound " << bound << ")");
      CHECK(diff <= bound);
      CHECK(rel_err(out.loss.item<double>(), golden.at("loss").get<double>()) <= 10 * path);
    }
    model->train();
    model->forward(batch).loss.backward();
    // A weight's gradient sums terms over 4 x 160 token rows whose signs vary
    // with each row's loss gradient, so its norm may be two orders smaller than
    // its terms, whose rounding the count measures: a hundredfold margin.
    const double rows = double(batch.input_ids.numel());
    const double bound = 100 * fp32_backward_relative(golden.at("config"), double(batch.input_ids.size(1)), rows);
    double worst = 0;
    std::string worst_name;
    for (const auto& p : model->named_parameters()) {
      INFO(p.key());
      const double got = p.value().grad().norm().item<double>(), want = golden["grad_norms"][p.key()];
      if (zero_gradient(family, p.key())) {
        // Rounding of score gradients of order 0.1: 0.1 x 2^-24 x sqrt(640) = 1.5e-7 on either side.
        CHECK(got <= 1e-6);
        CHECK(want <= 1e-6);
        continue;
      }
      const double e = rel_err(got, want);
      CHECK(e <= bound);
      if (e > worst) worst = e, worst_name = p.key();
    }
    WARN(family << ": worst gradient norm " << worst << " relative at " << worst_name << " (bound " << bound << ")");
  }
}
