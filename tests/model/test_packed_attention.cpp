// Packed (padding-free) attention against the padded eager path it replaces:
// the same context and the same gradients of q, k and v within bounds derived
// from the precision's rounding, with dropout drawing the same mask in both, in
// fp32 and bf16; and against the exact values computed in float64.
#include "model/bert.h"
#include "model/encoder_ops.h"
#include "model/packed_attention.h"
#include "attention_exact.h"
#include "family_sections.h"
#include "bf16_bound.h"
#include "golden.h"
#include "model/model_factory.h"

#include "catch.h"

#include <cmath>

using namespace runner;
using namespace runner::test;

namespace {

// The padded path op for op: scores scaled after the product, the additive mask,
// softmax, dropout, the context; in bf16 each product's output is bf16 and the
// softmax float, as under autocast.
// DistilBERT's order instead scales q first and fills the masked scores.
torch::Tensor padded_context(const Layout& l, const torch::Tensor& qkv, double p, ScoreScaling scaling) {
  auto padded = padded_qkv(qkv, l.token_index(), l.batch(), l.length, l.heads);
  auto q = padded[0], k = padded[1], v = padded[2];
  const double root = std::sqrt(static_cast<double>(l.head_dim));
  torch::Tensor scores;
  if (scaling == ScoreScaling::AfterProduct) {
    scores = torch::matmul(q, k.transpose(-1, -2)) / root + additive_attention_mask(l.mask());
  } else if (scaling == ScoreScaling::TimesInverseRoot) {  // ModernBERT: the mask in the model's dtype
    auto mask = torch::zeros(l.hidden_pairs().sizes(), q.options()).masked_fill(l.hidden_pairs(), lowest_value(q.scalar_type()));
    scores = torch::matmul(q, k.transpose(-1, -2)) * std::pow(static_cast<double>(l.head_dim), -0.5) + mask;
    auto probs = train_dropout(torch::softmax(scores, -1, torch::kFloat).to(q.scalar_type()), p, true);
    return packed_context(torch::matmul(probs, v), l.token_index());
  } else {
    auto padding = l.mask().eq(0).view({l.batch(), 1, 1, l.length});
    scores = torch::matmul(q / root, k.transpose(-1, -2));
    scores = scores.masked_fill(padding, lowest_value(scores.scalar_type()));
  }
  auto probs = train_dropout(torch::softmax(scores, -1), p, true);
  return packed_context(torch::matmul(probs.to(v.scalar_type()), v), l.token_index());
}

Result run(const Layout& l, const torch::Tensor& qkv_in, const torch::Tensor& upstream, double p, bool packed,
           ScoreScaling scaling, uint64_t seed) {
  auto qkv = qkv_in.detach().clone().requires_grad_(true);
  torch::manual_seed(seed);  // both paths draw their one dropout seed from here
  torch::Tensor context;
  if (packed) {
    auto sequences = packed_sequences(l.token_index(), l.batch(), l.length);
    context = packed_attention(qkv, *sequences, {l.heads, scaling, p, true, l.window});
  } else {
    context = padded_context(l, qkv, p, scaling);
  }
  (context.to(torch::kDouble) * upstream).sum().backward();
  return {context.detach().to(torch::kDouble), qkv.grad().to(torch::kDouble)};
}

// bf16: the fp32 arithmetic above, plus the bf16 roundings both paths make:
// a score's product output and its division (2), the probabilities cast for
// the context product and its output (2); in the backward dV's output, dP's
// output, dS's cast and division, dQ's and dK's outputs (6). A LibTorch GEMM that
// keeps its running sums in bf16 rounds once per term as well (bf16_bound.h).
Bound bf16_bound(const Layout& l, double score_twin) {
  const double n = l.length, d = l.head_dim, b = kBf16Unit;
  const double sums = test::bf16_gemm_sums_in_bf16() ? 1.0 : 0.0;
  const double shift = std::expm1(2 * ((2 + sums * d) * b + (d + 1) * kFloatUnit) * score_twin);
  const Bound fp32 = float_bound(l, 0.0);
  return {shift + (2 + sums * n) * b + fp32.context,
          2 * shift + (2 + 6 + sums * (2 * n + d)) * b + fp32.grad};
}

void check_against_exact_and_padded(const Layout& l, torch::ScalarType dtype, ScoreScaling scaling, double p) {
  torch::manual_seed(3);
  auto qkv = (torch::randn({l.token_index().numel(), 3 * l.hidden()}) * 0.5).to(dtype);
  auto upstream = torch::randn({qkv.size(0), l.hidden()}, torch::kDouble);
  const uint64_t seed = 29;
  torch::manual_seed(seed);  // the mask both paths draw: train_dropout's on ones
  auto noise = train_dropout(torch::ones({l.batch(), l.heads, l.length, l.length}), p, true).to(torch::kDouble);
  const Result packed = run(l, qkv, upstream, p, true, scaling, seed);
  const Result padded = run(l, qkv, upstream, p, false, scaling, seed);
  const Exact want = exact(l, qkv, upstream, noise);
  const Bound k = dtype == torch::kFloat ? float_bound(l, want.score_twin) : bf16_bound(l, want.score_twin);
  INFO("dtype " << dtype << ", bounds " << k.context << " / " << k.grad << " twins");
  WARN("packed vs padded: context " << (packed.context - padded.context).abs().max().item<double>()
                                    << ", gradient " << (packed.grad_qkv - padded.grad_qkv).abs().max().item<double>());
  CHECK(excess(packed.context, want.value.context, want.twin.context, k.context) <= 0);
  CHECK(excess(padded.context, want.value.context, want.twin.context, k.context) <= 0);
  CHECK(excess(packed.context, padded.context, want.twin.context, 2 * k.context) <= 0);
  CHECK(excess(packed.grad_qkv, want.value.grad_qkv, want.twin.grad_qkv, k.grad) <= 0);
  CHECK(excess(padded.grad_qkv, want.value.grad_qkv, want.twin.grad_qkv, k.grad) <= 0);
  CHECK(excess(packed.grad_qkv, padded.grad_qkv, want.twin.grad_qkv, 2 * k.grad) <= 0);
}

}  // namespace

TEST_CASE("packed attention equals the padded path in fp32, dropout included", "[model][packed]") {
  const Layout l;
  auto noise = [&](double p) {
    torch::manual_seed(29);
    return train_dropout(torch::ones({l.batch(), l.heads, l.length, l.length}), p, true);
  };
  REQUIRE(noise(0.1).eq(0).any().item<bool>());  // the mask drops something among the pairs
  for (double p : {0.0, 0.1}) {
    INFO("dropout " << p);
    check_against_exact_and_padded(l, torch::kFloat, ScoreScaling::AfterProduct, p);
    check_against_exact_and_padded(l, torch::kFloat, ScoreScaling::QueryFirst, p);
  }
}

TEST_CASE("packed attention equals the padded path in bf16, as autocast rounds it", "[model][packed]") {
  const Layout l;
  for (double p : {0.0, 0.1}) {
    INFO("dropout " << p);
    check_against_exact_and_padded(l, torch::kBFloat16, ScoreScaling::AfterProduct, p);
  }
}

TEST_CASE("packed attention keeps ModernBERT's scaling and local window", "[model][packed]") {
  Layout l;
  l.window = 3;  // the 12-token sequence's queries see 4 to 7 keys, the 1-token one itself
  for (double p : {0.0, 0.1}) {
    INFO("fp32, dropout " << p);
    check_against_exact_and_padded(l, torch::kFloat, ScoreScaling::TimesInverseRoot, p);
  }
  INFO("bf16 without attention dropout (ModernBERT's default)");
  check_against_exact_and_padded(l, torch::kBFloat16, ScoreScaling::TimesInverseRoot, 0.0);
}

TEST_CASE("packed attention gives the same bits on one thread as on two", "[model][packed]") {
  // Each (sequence, head) is one task writing its own rows, so how the tasks
  // are split over threads changes no value.
  const Layout l;
  const int threads = at::get_num_threads();
  for (auto dtype : {torch::kFloat, torch::kBFloat16}) {
    INFO("dtype " << dtype);
    torch::manual_seed(3);
    auto qkv = (torch::randn({l.token_index().numel(), 3 * l.hidden()}) * 0.5).to(dtype);
    auto upstream = torch::randn({qkv.size(0), l.hidden()}, torch::kDouble);
    at::set_num_threads(1);
    const Result one = run(l, qkv, upstream, 0.1, true, ScoreScaling::AfterProduct, 29);
    at::set_num_threads(2);
    const Result two = run(l, qkv, upstream, 0.1, true, ScoreScaling::AfterProduct, 29);
    at::set_num_threads(threads);
    CHECK(torch::equal(one.context, two.context));
    CHECK(torch::equal(one.grad_qkv, two.grad_qkv));
  }
}

TEST_CASE("packed attention's sequences come from the packed token positions", "[model][packed]") {
  // Rows of 3, 1 and 2 tokens in a batch padded to 4; the second row has a hole
  // at column 1 (its mask is 1, 0, 1, 0 would not run unpadded, but the
  // positions still say where each token sits).
  auto seq = packed_sequences(torch::tensor({0, 1, 2, 4, 8, 10}, torch::kInt64), 3, 4);
  CHECK(seq->padded_length == 4);
  CHECK(torch::equal(seq->starts, torch::tensor({0, 3, 4, 6}, torch::kInt64)));
  CHECK(torch::equal(seq->columns, torch::tensor({0, 1, 2, 0, 0, 2}, torch::kInt64)));
}

TEST_CASE("packed attention applies on the CPU in float, and in bf16 where the probabilities stay float",
          "[model][packed]") {
  const auto fp32 = torch::zeros({2, 6}), bf16 = fp32.to(torch::kBFloat16);
  const PackedAttentionSpec bert{1, ScoreScaling::AfterProduct, 0.1, true};
  const PackedAttentionSpec distilbert{1, ScoreScaling::QueryFirst, 0.1, true};
  const PackedAttentionSpec modernbert{1, ScoreScaling::TimesInverseRoot, 0.0, true, 64};
  PackedAttentionSpec modernbert_dropout = modernbert;
  modernbert_dropout.dropout_p = 0.1;
  for (const auto& spec : {bert, distilbert, modernbert, modernbert_dropout}) CHECK(packed_attention_applies(fp32, spec));
  CHECK(packed_attention_applies(bf16, bert));
  CHECK_FALSE(packed_attention_applies(bf16, distilbert));
  CHECK(packed_attention_applies(bf16, modernbert));
  CHECK_FALSE(packed_attention_applies(bf16, modernbert_dropout));
  CHECK_FALSE(packed_attention_applies(fp32.to(torch::kDouble), bert));
}

namespace {

// One forward and backward in training mode of a model built from a seed, with
// dropout on attention's probabilities only: hidden dropout indexes its mask
// by the layout ([B, L, H] padded, [T, H] packed), attention's by the token
// pair in both.
test::ExecutionRun train_step_in(nlohmann::json section, Execution execution) {
  section["execution"] = execution == Execution::Padded ? "padded" : "unpadded";
  torch::manual_seed(3);
  auto model = make_model(section, ModelContext{2, {}});
  model->train();
  torch::manual_seed(11);
  return test::run_in(model, execution, test::parity_batch());
}

}  // namespace

TEST_CASE("unpadded training with attention dropout equals the padded path, family by family",
          "[model][packed]") {
  std::vector<nlohmann::json> sections = bert_like_sections(0.1);
  const std::vector<nlohmann::json> others = {
      // ModernBERT's dropouts are 0 by default; a window of +-8 on the batch's 74
      // columns, a global then two local layers, each pooling.
      {{"type", "modernbert"}, {"num_hidden_layers", 3}, {"hidden_size", 64}, {"num_attention_heads", 4},
       {"intermediate_size", 96}, {"local_attention", 16}, {"classifier_pooling", "mean"}},
      {{"type", "modernbert"}, {"num_hidden_layers", 3}, {"hidden_size", 64}, {"num_attention_heads", 4},
       {"intermediate_size", 96}, {"local_attention", 16}, {"classifier_pooling", "cls"}},
      // DeBERTa-v3 attends padded in both paths (its relative terms index the
      // padded columns); unpadded, everything around the attention takes the
      // real tokens only. Buckets 256 (distances as they are) and 16 (log
      // buckets past +-8 on the batch's 74 columns).
      {{"type", "deberta-v2"}, {"preset", "deberta-v3-base"}, {"num_hidden_layers", 2}, {"hidden_size", 64},
       {"num_attention_heads", 4}, {"intermediate_size", 128}, {"vocab_size", 30522}, {"hidden_dropout_prob", 0.0},
       {"attention_probs_dropout_prob", 0.1}, {"pooler_dropout", 0.0}},
      {{"type", "deberta-v2"}, {"preset", "deberta-v3-base"}, {"num_hidden_layers", 2}, {"hidden_size", 64},
       {"num_attention_heads", 4}, {"intermediate_size", 128}, {"vocab_size", 30522}, {"position_buckets", 16},
       {"hidden_dropout_prob", 0.0}, {"attention_probs_dropout_prob", 0.1}, {"pooler_dropout", 0.0}},
  };
  sections.insert(sections.end(), others.begin(), others.end());
  for (const auto& section : sections) {
    INFO(section.dump());
    // Both paths draw the same attention masks, so they differ by the order of
    // sums alone: the tolerance of check_unpadded_equals_padded.
    auto [logits_err, grad_err] = test::check_unpadded_equals_padded(train_step_in(section, Execution::Padded),
                                                                     train_step_in(section, Execution::Unpadded));
    WARN(section.at("type") << " training, unpadded vs padded: logits " << logits_err << ", worst gradient "
                            << grad_err);
  }
}
