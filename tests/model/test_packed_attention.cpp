// Packed (padding-free) attention against the padded eager path it replaces:
// the same context and the same gradients of q, k and v within bounds derived
// from the precision's rounding, with dropout drawing the same mask in both, in
// fp32 and bf16; and against the exact values computed in float64.
#include "model/bert.h"
#include "model/encoder_ops.h"
#include "model/packed_attention.h"
#include "bf16_bound.h"
#include "golden.h"
#include "model/model_factory.h"

#include "catch.h"

#include <cmath>

using namespace runner;

namespace {

constexpr double kFloatUnit = 1.0 / (1 << 24);  // fp32 rounds to within 2^-24 of a value
constexpr double kBf16Unit = 1.0 / (1 << 9);    // bf16 keeps 8 significant bits

// Four sequences of a batch padded to 12, one of them a single token.
struct Layout {
  std::vector<int64_t> lengths{12, 7, 1, 5};
  int64_t length = 12, heads = 2, head_dim = 16;
  int64_t window = -1;  // local attention's reach, as ModernBERT's local layers
  int64_t batch() const { return static_cast<int64_t>(lengths.size()); }
  int64_t hidden() const { return heads * head_dim; }
  torch::Tensor token_index() const {
    std::vector<int64_t> flat;
    for (int64_t b = 0; b < batch(); ++b)
      for (int64_t j = 0; j < lengths[b]; ++j) flat.push_back(b * length + j);
    return torch::tensor(flat, torch::kInt64);
  }
  torch::Tensor mask() const {  // [B, L] 1 for a token
    auto m = torch::zeros({batch(), length}, torch::kInt64);
    for (int64_t b = 0; b < batch(); ++b) m[b].narrow(0, 0, lengths[b]).fill_(1);
    return m;
  }
  torch::Tensor hidden_pairs() const {  // [B, 1, L, L] true where a query may not see a key
    auto keys = mask().to(torch::kBool).view({batch(), 1, 1, length});
    if (window < 0) return keys.logical_not().expand({-1, 1, length, length});
    auto columns = torch::arange(length);
    auto near = (columns.unsqueeze(1) - columns.unsqueeze(0)).abs() <= window;
    return (keys & near.view({1, 1, length, length})).logical_not();
  }
};

struct Result {
  torch::Tensor context, grad_qkv;
};

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

// [T, H] packed rows -> [B, heads, L, d] (padding rows zero), and back.
torch::Tensor to_heads(const Layout& l, const torch::Tensor& packed) {
  return torch::zeros({l.batch() * l.length, packed.size(1)}, packed.options())
      .index_copy(0, l.token_index(), packed)
      .view({l.batch(), l.length, -1, l.head_dim})
      .permute({0, 2, 1, 3});
}
torch::Tensor to_packed(const Layout& l, const torch::Tensor& heads) {
  return packed_context(heads, l.token_index());
}

// The exact values, in float64 from the same inputs and dropout mask, and their
// "absolute twins": the same sums with every term replaced by its absolute
// value. A computation of sums and products rounded with unit u at k steps
// lies within about k u times its twin of the exact value (Higham, Accuracy and
// Stability of Numerical Algorithms, ch. 3).
struct Exact {
  Result value, twin;
  double score_twin = 0;  // the largest |q||k|^T / sqrt(d) over token pairs
};

Exact exact(const Layout& l, const torch::Tensor& qkv_in, const torch::Tensor& upstream, const torch::Tensor& noise) {
  auto qkv = qkv_in.detach().to(torch::kDouble).requires_grad_(true);
  auto padded = padded_qkv(qkv, l.token_index(), l.batch(), l.length, l.heads);
  auto q = padded[0], k = padded[1], v = padded[2];
  const double root = std::sqrt(static_cast<double>(l.head_dim));
  auto padding = l.hidden_pairs();
  // The lowest double, not -inf: a padded query row that sees no key (outside
  // every window) must not turn the whole backward into NaN.
  auto scores = (torch::matmul(q, k.transpose(-1, -2)) / root).masked_fill(padding, lowest_value(torch::kDouble));
  auto probs = torch::softmax(scores, -1);
  auto dropped = probs * noise;
  auto context = torch::matmul(dropped, v);
  (to_packed(l, context) * upstream).sum().backward();
  Exact e;
  e.value = {to_packed(l, context).detach(), qkv.grad()};
  torch::NoGradGuard no_grad;
  auto aq = q.abs(), ak = k.abs(), av = v.abs(), g = to_heads(l, upstream).abs();
  e.score_twin = (torch::matmul(aq, ak.transpose(-1, -2)) / root).masked_fill(padding, 0).max().item<double>();
  auto p = probs.detach(), pd = dropped.detach();
  auto dp = torch::matmul(g, av.transpose(-1, -2)) * noise;
  auto ds = p * (dp + (p * dp).sum(-1, true));
  auto dq = torch::matmul(ds, ak) / root, dk = torch::matmul(ds.transpose(-1, -2), aq) / root;
  auto dv = torch::matmul(pd.transpose(-1, -2), g);
  auto grads = torch::cat({to_packed(l, dq), to_packed(l, dk), to_packed(l, dv)}, 1);
  e.twin = {to_packed(l, torch::matmul(pd, av)), grads};
  return e;
}

// Each path's rounding, as relative multiples of the twins.
struct Bound {
  double context, grad;
};

// fp32, n = L tokens, d = head_dim. A score is a d-term dot product and one
// division: (d + 1) u of its twin, so e = (d + 1) u max|s| moves each
// probability by a factor within exp(2e) - 1. Softmax rounds exp (Sleef: 1 ulp
// = 2u), the n-term sum, its reciprocal and the product: (n + 4) u; dropout's
// scaling u; the context's n-term sum n u: (2n + 5) u in all. The gradient
// chain adds d (dP = G V^T), n (the softmax's dot), 3 (its product and
// difference, the 1/sqrt(d)) and n + 1 (dQ's and dK's sums) steps, and the
// probabilities enter dS twice.
Bound float_bound(const Layout& l, double score_twin) {
  const double n = l.length, d = l.head_dim, u = kFloatUnit;
  const double shift = std::expm1(2 * (d + 1) * u * score_twin);
  return {shift + (2 * n + 5) * u, 2 * shift + (3 * n + 2 * d + 12) * u};
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

// The largest of |a - b| - k * twin over the elements: <= 0 when a is within
// k twins of b everywhere.
double excess(const torch::Tensor& a, const torch::Tensor& b, const torch::Tensor& twin, double k) {
  return ((a - b).abs() - k * twin).max().item<double>();
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
  const std::vector<nlohmann::json> sections = {
      {{"type", "bert"}, {"preset", "bert-tiny"}, {"hidden_dropout_prob", 0.0},
       {"attention_probs_dropout_prob", 0.1}, {"classifier_dropout", 0.0}},
      {{"type", "distilbert"}, {"preset", "distilbert-base"}, {"n_layers", 2}, {"dim", 64}, {"n_heads", 2},
       {"hidden_dim", 128}, {"dropout", 0.0}, {"attention_dropout", 0.1}, {"seq_classif_dropout", 0.0}},
      {{"type", "electra"}, {"preset", "electra-small"}, {"num_hidden_layers", 2}, {"embedding_size", 32},
       {"hidden_size", 64}, {"intermediate_size", 128}, {"hidden_dropout_prob", 0.0},
       {"attention_probs_dropout_prob", 0.1}, {"classifier_dropout", 0.0}},
      {{"type", "roberta"}, {"num_hidden_layers", 2}, {"hidden_size", 64}, {"num_attention_heads", 4},
       {"intermediate_size", 128}, {"vocab_size", 30522}, {"hidden_dropout_prob", 0.0},
       {"attention_probs_dropout_prob", 0.1}, {"classifier_dropout", 0.0}},
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
