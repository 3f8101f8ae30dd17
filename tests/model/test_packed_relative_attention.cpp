// DeBERTa's packed (padding-free) disentangled attention against the padded op
// sequence it replaces and against the exact values in float64: the context
// and the gradients of q, k, v and of both projected relative tables, within
// bounds derived from fp32's rounding, with dropout drawing the same mask.
#include "model/deberta_v2.h"
#include "model/encoder_ops.h"
#include "model/model_factory.h"
#include "model/packed_relative_attention.h"
#include "attention_exact.h"
#include "golden.h"

#include "catch.h"

#include <cmath>
#include <set>

using namespace runner;
using namespace runner::test;

namespace {

// The relative positions of the layout's L columns and the rows of the table
// that the scores read, as DebertaV2ForSequenceClassification derives them.
struct Relative {
  int64_t span = 0, first = 0, rows = 0;
  bool c2p = true, p2c = true;
  torch::Tensor positions;  // [L, L] int64
};

Relative relative(const Layout& l, int64_t span, long long buckets, long long max_position, bool c2p = true,
                  bool p2c = true) {
  Relative r;
  r.span = span, r.c2p = c2p, r.p2c = p2c;
  r.positions = deberta_relative_positions(l.length, buckets, max_position, torch::kCPU);
  const int64_t reach = r.positions.abs().max().item<int64_t>();
  r.first = std::max<int64_t>(0, span - reach);
  r.rows = std::min<int64_t>(2 * span, span + reach + 1) - r.first;
  return r;
}

double scale_of(const Layout& l, const Relative& r) {
  return static_cast<double>(std::sqrt(static_cast<float>(l.head_dim * (1 + r.c2p + r.p2c))));
}

// transformers' DisentangledSelfAttention scores on the padded layout, op for
// op: q (k / s)^T + (gather(q pos_key^T) / s + gather(k pos_query^T)^T / s).
torch::Tensor padded_scores(const Layout& l, const Relative& r, const torch::Tensor& q, const torch::Tensor& k,
                            const torch::Tensor& pos_key, const torch::Tensor& pos_query) {
  const double s = scale_of(l, r);
  auto heads = [&](const torch::Tensor& x) { return x.view({1, r.rows, l.heads, l.head_dim}).permute({0, 2, 1, 3}); };
  const std::vector<int64_t> shape = {l.batch(), l.heads, l.length, l.length};
  auto scores = torch::matmul(q, k.transpose(-1, -2) / s);
  torch::Tensor terms;
  if (r.c2p) {
    auto index = (torch::clamp(r.positions + r.span, 0, 2 * r.span - 1) - r.first).expand(shape);
    terms = torch::gather(torch::matmul(q, heads(pos_key).transpose(-1, -2)), -1, index) / s;
  }
  if (r.p2c) {
    auto index = (torch::clamp(-r.positions + r.span, 0, 2 * r.span - 1) - r.first).expand(shape);
    auto term = torch::gather(torch::matmul(k, heads(pos_query).transpose(-1, -2)), -1, index).transpose(-1, -2) / s;
    terms = terms.defined() ? terms + term : term;
  }
  return scores + terms;
}

torch::Tensor query_and_key_real(const Layout& l) {
  auto m = l.mask().to(torch::kBool);
  return m.view({l.batch(), 1, 1, l.length}) & m.view({l.batch(), 1, l.length, 1});
}

struct Inputs {
  torch::Tensor qkv, pos_key, pos_query, upstream;
};

Inputs inputs(const Layout& l, const Relative& r) {
  torch::manual_seed(3);
  Inputs in;
  in.qkv = torch::randn({l.token_index().numel(), 3 * l.hidden()}) * 0.5;
  in.pos_key = torch::randn({r.rows, l.hidden()}) * 0.5;
  in.pos_query = torch::randn({r.rows, l.hidden()}) * 0.5;
  in.upstream = torch::randn({in.qkv.size(0), l.hidden()}, torch::kDouble);
  return in;
}

struct Outcome {
  torch::Tensor context, grad_qkv, grad_pos_key, grad_pos_query;  // float64
};

// A leaf's gradient in float64; zeros for a table that no term read.
torch::Tensor grad_of(const torch::Tensor& leaf) {
  return leaf.grad().defined() ? leaf.grad().to(torch::kDouble) : torch::zeros(leaf.sizes(), torch::kDouble);
}

// One forward and backward, packed or padded, dropout's one seed drawn from `seed`.
Outcome run(const Layout& l, const Relative& r, const Inputs& in, double p, bool packed, uint64_t seed) {
  auto qkv = in.qkv.clone().requires_grad_(true), pk = in.pos_key.clone().requires_grad_(true),
       pq = in.pos_query.clone().requires_grad_(true);
  torch::manual_seed(seed);
  torch::Tensor context;
  if (packed) {
    auto sequences = packed_sequences(l.token_index(), l.batch(), l.length);
    auto tables = relative_index_tables(r.positions, r.span, r.first, r.c2p, r.p2c);
    context = packed_relative_attention(qkv, r.c2p ? pk : torch::Tensor(), r.p2c ? pq : torch::Tensor(), *sequences,
                                        tables, {l.heads, scale_of(l, r), p, true});
  } else {
    auto padded = padded_qkv(qkv, l.token_index(), l.batch(), l.length, l.heads);
    auto scores = padded_scores(l, r, padded[0], padded[1], pk, pq);
    scores = scores.masked_fill(query_and_key_real(l).logical_not(), lowest_value(torch::kFloat));
    auto probs = train_dropout(torch::softmax(scores, -1), p, true);
    context = packed_context(torch::matmul(probs, padded[2]), l.token_index());
  }
  (context.to(torch::kDouble) * in.upstream).sum().backward();
  return {context.detach().to(torch::kDouble), grad_of(qkv), grad_of(pk), grad_of(pq)};
}

// The exact values in float64 from the same inputs and dropout mask (`noise`),
// and their absolute twins (attention_exact.h): the same sums with every term
// replaced by its absolute value, got here as the gradient of the scores'
// bilinear map at |inputs| against the twin of d scores.
struct ExactRelative {
  Outcome value, twin;
  double score_twin = 0;
};

ExactRelative exact_relative(const Layout& l, const Relative& r, const Inputs& in, const torch::Tensor& noise) {
  ExactRelative e;
  const auto hidden = query_and_key_real(l).logical_not();
  {
    auto qkv = in.qkv.to(torch::kDouble).requires_grad_(true), pk = in.pos_key.to(torch::kDouble).requires_grad_(true),
         pq = in.pos_query.to(torch::kDouble).requires_grad_(true);
    auto padded = padded_qkv(qkv, l.token_index(), l.batch(), l.length, l.heads);
    auto scores = padded_scores(l, r, padded[0], padded[1], pk, pq).masked_fill(hidden, lowest_value(torch::kDouble));
    auto probs = torch::softmax(scores, -1);
    auto context = to_packed(l, torch::matmul(probs * noise, padded[2]));
    (context * in.upstream).sum().backward();
    e.value = {context.detach(), grad_of(qkv), grad_of(pk), grad_of(pq)};
    // The twins' inputs: the probabilities and their dropped copy, as they are.
    auto p = probs.detach(), dropped = (probs * noise).detach();
    auto aqkv = in.qkv.to(torch::kDouble).abs().requires_grad_(true), apk = in.pos_key.to(torch::kDouble).abs().requires_grad_(true),
         apq = in.pos_query.to(torch::kDouble).abs().requires_grad_(true);
    auto apadded = padded_qkv(aqkv, l.token_index(), l.batch(), l.length, l.heads);
    auto ascores = padded_scores(l, r, apadded[0], apadded[1], apk, apq);
    e.score_twin = ascores.detach().masked_fill(hidden, 0).max().item<double>();
    auto g = to_heads(l, in.upstream).abs();
    auto dp = torch::matmul(g, apadded[2].detach().transpose(-1, -2)) * noise;
    auto ds = p * (dp + (p * dp).sum(-1, true));
    auto twin_sum = (ascores * ds).sum() + (torch::matmul(dropped, apadded[2]) * g).sum();
    twin_sum.backward();
    e.twin = {to_packed(l, torch::matmul(dropped, apadded[2].detach())), grad_of(aqkv), grad_of(apk), grad_of(apq)};
  }
  return e;
}

// fp32, n = L tokens, d = head_dim, B sequences. A score is three d-term dot
// products, each with one division (the keys', or the term's), and two sums:
// (d + 3) u of its twin, which moves each probability by a factor within
// exp(2e) - 1. The context is then float_bound's: (2n + 5) u. The gradients
// take float_bound's chain up to d scores, and past them the longest of: dq
// (and dk) as n terms of the content product, a term's scatter of up to n
// pairs into one row, its division and up to 2n - 1 rows of its product, and
// the sum of the two: 3n + 2 steps beyond float_bound's n + 1; a table's
// gradient as n pairs, the division, n tokens and the B sequences: 2n + B + 1.
Bound relative_bound(const Layout& l, double score_twin) {
  const double n = l.length, d = l.head_dim, b = l.batch(), u = kFloatUnit;
  const double shift = std::expm1(2 * (d + 3) * u * score_twin);
  const double beyond = std::max(3 * n + 2, 2 * n + b + 1) - (n + 1);
  return {shift + (2 * n + 5) * u, 2 * shift + (3 * n + 2 * d + 12 + beyond) * u};
}

void check_against_exact_and_padded(const Layout& l, const Relative& r, double p) {
  const Inputs in = inputs(l, r);
  const uint64_t seed = 29;
  torch::manual_seed(seed);  // the mask both paths draw: train_dropout's on ones
  auto noise = train_dropout(torch::ones({l.batch(), l.heads, l.length, l.length}), p, true).to(torch::kDouble);
  const Outcome packed = run(l, r, in, p, true, seed), padded = run(l, r, in, p, false, seed);
  const ExactRelative want = exact_relative(l, r, in, noise);
  const Bound k = relative_bound(l, want.score_twin);
  INFO("bounds " << k.context << " / " << k.grad << " twins; table rows " << r.first << " + " << r.rows);
  WARN("packed vs padded: context " << (packed.context - padded.context).abs().max().item<double>()
                                    << ", q k v gradient " << (packed.grad_qkv - padded.grad_qkv).abs().max().item<double>()
                                    << ", tables' gradient "
                                    << (packed.grad_pos_key - padded.grad_pos_key).abs().max().item<double>());
  for (const Outcome* got : {&packed, &padded}) {
    CHECK(excess(got->context, want.value.context, want.twin.context, k.context) <= 0);
    CHECK(excess(got->grad_qkv, want.value.grad_qkv, want.twin.grad_qkv, k.grad) <= 0);
    CHECK(excess(got->grad_pos_key, want.value.grad_pos_key, want.twin.grad_pos_key, k.grad) <= 0);
    CHECK(excess(got->grad_pos_query, want.value.grad_pos_query, want.twin.grad_pos_query, k.grad) <= 0);
  }
  CHECK(excess(packed.context, padded.context, want.twin.context, 2 * k.context) <= 0);
  CHECK(excess(packed.grad_qkv, padded.grad_qkv, want.twin.grad_qkv, 2 * k.grad) <= 0);
  CHECK(excess(packed.grad_pos_key, padded.grad_pos_key, want.twin.grad_pos_key, 2 * k.grad) <= 0);
  CHECK(excess(packed.grad_pos_query, padded.grad_pos_query, want.twin.grad_pos_query, 2 * k.grad) <= 0);
}

// The names of the autograd nodes behind `t` (a C++ Function's node is named
// by its demangled type).
std::set<std::string> graph_nodes(const torch::Tensor& t) {
  std::set<std::string> names;
  using NodePtr = std::decay_t<decltype(t.grad_fn())>;
  std::vector<NodePtr> todo{t.grad_fn()};
  std::set<torch::autograd::Node*> seen;
  while (!todo.empty()) {
    NodePtr node = todo.back();
    todo.pop_back();
    if (!node || !seen.insert(node.get()).second) continue;
    names.insert(node->name());
    for (const auto& edge : node->next_edges()) todo.push_back(edge.function);
  }
  return names;
}

bool uses_packed_kernel(const torch::Tensor& t) {
  for (const auto& name : graph_nodes(t))
    if (name.find("PackedRelativeAttentionFunction") != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("packed relative attention equals the padded path in fp32, dropout included", "[model][packed]") {
  const Layout l;  // sequences of 12, 7, 1 and 5 tokens padded to 12
  for (double p : {0.0, 0.1}) {
    INFO("dropout " << p);
    {
      INFO("distances as they are: span 16 covers the 11 columns' reach");
      check_against_exact_and_padded(l, relative(l, 16, -1, 16), p);
    }
    {
      INFO("log buckets past +-2 (buckets 4, max position 12), DeBERTa-v3's kind");
      check_against_exact_and_padded(l, relative(l, 4, 4, 12), p);
    }
    {
      INFO("span 3 below the reach: rows clamped at both ends, many pairs to a row");
      check_against_exact_and_padded(l, relative(l, 3, -1, 3), p);
    }
    {
      INFO("content-to-position only, then position-to-content only");
      check_against_exact_and_padded(l, relative(l, 16, -1, 16, true, false), p);
      check_against_exact_and_padded(l, relative(l, 16, -1, 16, false, true), p);
    }
  }
}

TEST_CASE("packed relative attention gives the same bits on one thread as on two", "[model][packed]") {
  // Each (sequence, head) writes its own rows, and the tables' gradients are
  // summed over the sequences in batch order whatever the split.
  const Layout l;
  const Relative r = relative(l, 4, 4, 12);
  const Inputs in = inputs(l, r);
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const Outcome one = run(l, r, in, 0.1, true, 29);
  at::set_num_threads(2);
  const Outcome two = run(l, r, in, 0.1, true, 29);
  at::set_num_threads(threads);
  CHECK(torch::equal(one.context, two.context));
  CHECK(torch::equal(one.grad_qkv, two.grad_qkv));
  CHECK(torch::equal(one.grad_pos_key, two.grad_pos_key));
  CHECK(torch::equal(one.grad_pos_query, two.grad_pos_query));
}

TEST_CASE("an unpadded DeBERTa runs the packed kernel on the CPU in fp32, the padded attention in bf16",
          "[model][packed]") {
  const nlohmann::json section = {{"type", "deberta-v2"},       {"preset", "deberta-v3-base"},
                                  {"num_hidden_layers", 1},     {"hidden_size", 64},
                                  {"num_attention_heads", 4},   {"intermediate_size", 128},
                                  {"vocab_size", 30522},        {"execution", "unpadded"}};
  torch::manual_seed(3);
  auto model = make_model(section, ModelContext{2, {}});
  model->train();
  const ModelBatch b = parity_batch();
  CHECK(uses_packed_kernel(model->forward(b).logits));
  {
    Bf16Autocast autocast(false);
    CHECK_FALSE(uses_packed_kernel(model->forward(b).logits));
  }
  CHECK(packed_relative_attention_applies(torch::zeros({2, 6})));
  CHECK_FALSE(packed_relative_attention_applies(torch::zeros({2, 6}, torch::kBFloat16)));
  CHECK_FALSE(packed_relative_attention_applies(torch::zeros({2, 6}, torch::kDouble)));
}
