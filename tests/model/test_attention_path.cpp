// Which attention BERT runs (model/bert.cpp). In CPU training every dropout mask,
// the attention probabilities' included, comes from the runner's counter dropout:
// LibTorch 2.x's scaled_dot_product_attention cannot draw dropout in a CPU kernel
// and falls back to a math path with a bernoulli_ over every score, which made
// the step slower on 2.11 than on 1.13 (README "Against today's Python stack").
// Where no dropout is drawn (eval) LibTorch 2.x takes its fused attention, which
// computes attention's formula. An ATen observer sees which ops ran.
// On Debian's LibTorch 1.13 there is no fused attention; the 2.x lines run in
// `bash scripts/test.sh pip-torch`.
#include "golden.h"
#include "model/bert.h"

#include "catch.h"

#include <ATen/record_function.h>

#include <atomic>
#include <cmath>
#include <cstring>

using namespace runner;
using runner::test::golden;

namespace {

std::atomic<long long> bernoulli_ops{0}, fused_attention_ops{0};

std::unique_ptr<at::ObserverContext> count_ops(const at::RecordFunction& fn) {
  const char* name = fn.name();
  if (std::strcmp(name, "aten::bernoulli_") == 0) ++bernoulli_ops;
  if (std::strcmp(name, "aten::scaled_dot_product_attention") == 0) ++fused_attention_ops;
  return nullptr;
}

struct OpCounts {
  long long bernoulli = 0, fused_attention = 0;
};

// The attention's forward and backward, with the ops counted.
OpCounts attend_counted(BertSelfAttention& attention, const torch::Tensor& hidden, const AttentionInputs& a,
                        torch::Tensor& out) {
  bernoulli_ops = 0, fused_attention_ops = 0;
  at::CallbackHandle handle = at::addGlobalCallback(at::RecordFunctionCallback(count_ops));
  out = attention.forward(hidden, a);
  out.sum().backward();
  at::removeCallback(handle);
  return {bernoulli_ops.load(), fused_attention_ops.load()};
}

}  // namespace

TEST_CASE("CPU training draws attention dropout from the counter dropout; eval takes the fused attention",
          "[model]") {
  BertConfig config = read_bert_config(golden("tiny_bert/config.json"));
  config.attention_probs_dropout_prob = 0.1;  // BERT's; the golden config has none
  torch::manual_seed(3);
  BertSelfAttention attention(config);
  auto hidden = torch::randn({2, 16, config.hidden_size}).requires_grad_(true);
  auto mask = torch::ones({2, 16}, torch::kLong);
  mask.index_put_({1, torch::indexing::Slice(10)}, 0);  // the second row padded after 10 tokens
  AttentionInputs a{additive_attention_mask(mask), {}, {}, 2, 16};

  torch::Tensor trained, evaluated;
  attention.train();
  OpCounts train = attend_counted(attention, hidden, a, trained);
  CHECK(train.bernoulli == 0);
  CHECK(train.fused_attention == 0);
  attention.eval();
  OpCounts eval = attend_counted(attention, hidden, a, evaluated);
  CHECK(eval.bernoulli == 0);
#if TORCH_VERSION_MAJOR >= 2
  CHECK(eval.fused_attention > 0);
#endif
  // Dropout was drawn in training: some attention probabilities were zeroed.
  CHECK_FALSE(torch::allclose(trained, evaluated));

  // Without dropout, whichever path ran computes softmax(q k^T / sqrt(d) + mask) v, written
  // out here. 1e-5: float32 sums over 16 keys of contexts of size ~1 in another order than
  // the fused kernel's, each rounding ~6e-8 relative, leave errors far below it.
  torch::NoGradGuard no_grad;
  auto heads = [&](torch::nn::Linear& project) {
    return project(hidden).view({2, 16, attention.heads, attention.head_dim}).permute({0, 2, 1, 3});
  };
  auto scores = torch::matmul(heads(attention.query), heads(attention.key).transpose(-1, -2)) /
                std::sqrt(static_cast<double>(attention.head_dim));
  auto want = torch::matmul(torch::softmax(scores + a.additive_mask, -1), heads(attention.value))
                  .permute({0, 2, 1, 3})
                  .reshape({2, 16, config.hidden_size});
  CHECK(torch::allclose(evaluated, want, 1e-5, 1e-5));
}
