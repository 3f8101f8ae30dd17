// One task head's parity with Transformers on a family's tiny golden model:
// the parameter names, then one forward's logits and loss and every
// parameter's gradient norm against the golden's "forward" record
// (scripts/golden/token_classification_parity.py, qa_head_parity.py).
#pragma once

#include "model/model.h"

#include "catch.h"

#include <nlohmann/json.hpp>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace runner::test {

// fp32 and single-threaded, the same ops in the same order as Transformers: the
// two sides differ only where a GEMM kernel sums its K <= 64 products in
// another order, at most K x 2^-24 ~ 4e-6 relative per product, which the
// LayerNorm after every sublayer keeps from compounding; 1e-5 of
// max(1, |value|) holds a dozen such products with room.
constexpr double kFp32Parity = 1e-5;

inline double max_abs(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kFloat64) - b.to(torch::kFloat64)).abs().max().item<double>();
}

// `model` in the execution the caller set; `want` the golden's logits of `batch`.
inline void check_head_parity(TaskModel& model, const nlohmann::json& expected, const ModelBatch& batch,
                              const torch::Tensor& want, const std::string& family) {
  const auto& grads = expected.at("forward").at("grad_norms");
  std::vector<std::string> want_keys, keys;
  for (const auto& item : grads.items()) want_keys.push_back(item.key());
  for (const auto& p : model.named_parameters()) keys.push_back(p.key());
  // Every parameter has a gradient, so the lists hold every key. Compared as
  // sets: Transformers 5 registers RoBERTa's position table after the
  // embeddings' LayerNorm, 4.x before it, and the runner keeps 4.x's order.
  std::sort(keys.begin(), keys.end());
  std::sort(want_keys.begin(), want_keys.end());
  CHECK(keys == want_keys);

  model.eval();
  model.zero_grad();
  ModelOutput out = model.forward(batch);
  REQUIRE(out.logits.sizes() == want.sizes());
  CHECK(max_abs(out.logits, want) <= kFp32Parity * std::max(1.0, want.abs().max().item<double>()));
  const double loss = expected.at("forward").at("loss");
  CHECK(std::abs(out.loss.item<double>() - loss) <= kFp32Parity * loss);
  out.loss.backward();
  double worst = 0;
  for (const auto& p : model.named_parameters()) {
    const double want_norm = grads.at(p.key()).get<double>(), got = p.value().grad().norm().item<double>();
    INFO(p.key() << ": " << got << " vs " << want_norm);
    // A key bias's true gradient is 0 (it adds q.b to every score of a row): both hold rounding noise.
    if (want_norm < 1e-6) {
      CHECK(got < 1e-6);
      continue;
    }
    worst = std::max(worst, std::abs(got - want_norm) / want_norm);
    CHECK(std::abs(got - want_norm) <= kFp32Parity * want_norm);
  }
  WARN(family << ": logits " << max_abs(out.logits, want) << ", worst gradient norm relative " << worst);
}

}  // namespace runner::test
