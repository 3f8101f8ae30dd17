// Padding-free attention on a GPU: LibTorch's variable-length kernels (flash
// attention in fp16 and bf16, memory-efficient in fp32) against the exact
// float64 values within bounds derived from each precision's rounding, and
// each family's unpadded forward and backward against its padded one.
#include "model/model_factory.h"
#include "model/packed_attention.h"
#include "model/varlen_attention.h"

#include "../model/attention_exact.h"
#include "../model/family_sections.h"
#include "../model/golden.h"

#include "catch.h"

#include <functional>
#include <set>

using namespace runner;
using namespace runner::test;

namespace {

const torch::Device kGpu(torch::kCUDA, 0);

// One fp32 step of the GPU's kernels: their exp is the hardware's exp2
// approximation, within 2^-22 (4 fp32 units) of exact; the memory-efficient
// kernel multiplies in 3xTF32 on tensor cores (each float split into two TF32
// parts, the product of the low parts dropped), within 2^-21 (8 units).
constexpr double kFlashStep = 4 * kFloatUnit, kEfficientStep = 8 * kFloatUnit;

// Flash attention keeps scores, the online softmax and every sum in fp32 and
// rounds to the half type (unit b) the probabilities for the context product
// and the context itself (2); in the backward, the upstream gradient, the
// context read again for each row's dot with it, the probabilities for dV, dS
// for dQ and dK, and the three outputs (5). The inputs are exact in both.
Bound varlen_bound(const Layout& l, torch::ScalarType dtype, double score_twin) {
  if (dtype == torch::kFloat) return float_bound(l, score_twin, kEfficientStep);
  const double b = dtype == torch::kHalf ? 1.0 / (1 << 11) : 1.0 / (1 << 9);  // 11 and 8 significant bits
  const Bound fp32 = float_bound(l, score_twin, kFlashStep);
  return {2 * b + fp32.context, 5 * b + fp32.grad};
}

struct Attended {
  torch::Tensor context, grad_qkv;  // float64, on the host
};

Attended attend_on_gpu(const Layout& l, const torch::Tensor& qkv_host, const torch::Tensor& upstream,
                       const PackedAttentionSpec& spec) {
  auto qkv = qkv_host.to(kGpu).requires_grad_(true);
  auto sequences = packed_sequences(l.token_index().to(kGpu), l.batch(), l.length);
  REQUIRE(packed_attention_applies(qkv, spec));
  auto context = packed_attention(qkv, *sequences, spec);
  (context.to(torch::kDouble) * upstream.to(kGpu)).sum().backward();
  return {context.detach().to(torch::kCPU, torch::kDouble), qkv.grad().to(torch::kCPU, torch::kDouble)};
}

void check_against_exact(const Layout& l, torch::ScalarType dtype) {
  INFO("dtype " << dtype << ", window " << l.window);
  torch::manual_seed(3);
  auto qkv = (torch::randn({l.token_index().numel(), 3 * l.hidden()}) * 0.5).to(dtype);
  auto upstream = torch::randn({qkv.size(0), l.hidden()}, torch::kDouble);
  const PackedAttentionSpec spec{l.heads, ScoreScaling::AfterProduct, 0.0, true, l.window};
  const Attended got = attend_on_gpu(l, qkv, upstream, spec);
  const auto no_dropout = torch::ones({l.batch(), l.heads, l.length, l.length}, torch::kDouble);
  const Exact want = exact(l, qkv, upstream, no_dropout);
  const Bound k = varlen_bound(l, dtype, want.score_twin);
  INFO("bounds " << k.context << " / " << k.grad << " twins");
  CHECK(excess(got.context, want.value.context, want.twin.context, k.context) <= 0);
  CHECK(excess(got.grad_qkv, want.value.grad_qkv, want.twin.grad_qkv, k.grad) <= 0);
}

// The names of the autograd nodes behind `t`.
std::set<std::string> graph_nodes(const torch::Tensor& t) {
  std::set<std::string> names;
  std::vector<torch::autograd::Node*> todo{t.grad_fn().get()};
  std::set<torch::autograd::Node*> seen;
  while (!todo.empty()) {
    auto* node = todo.back();
    todo.pop_back();
    if (!node || !seen.insert(node).second) continue;
    names.insert(node->name());
    for (const auto& edge : node->next_edges()) todo.push_back(edge.function.get());
  }
  return names;
}

ExecutionRun train_step_on_gpu(nlohmann::json section, Execution execution) {
  torch::manual_seed(3);
  auto model = make_model(section, ModelContext{2, {}});
  model->to(kGpu);
  model->train();
  ModelBatch b = parity_batch();
  b.input_ids = b.input_ids.to(kGpu);
  b.token_type_ids = b.token_type_ids.to(kGpu);
  b.attention_mask = b.attention_mask.to(kGpu);
  b.labels = b.labels.to(kGpu);
  return run_in(model, execution, b);
}

}  // namespace

TEST_CASE("cuda: variable-length attention equals the exact values in fp32, fp16 and bf16", "[cuda]") {
  REQUIRE(torch::cuda::is_available());
  const Layout l;
  for (auto dtype : {torch::kFloat, torch::kHalf, torch::kBFloat16}) check_against_exact(l, dtype);
}

TEST_CASE("cuda: variable-length attention keeps a local window in fp16 and bf16", "[cuda]") {
  REQUIRE(torch::cuda::is_available());
  Layout l;
  l.window = 3;  // the 12-token sequence's queries see 4 to 7 keys, the 1-token one itself
  for (auto dtype : {torch::kHalf, torch::kBFloat16}) check_against_exact(l, dtype);
  const PackedAttentionSpec fp32_local{l.heads, ScoreScaling::AfterProduct, 0.0, true, l.window};
  CHECK_FALSE(varlen_attention_applies(torch::zeros({4, 3 * l.hidden()}, kGpu), fp32_local));
}

TEST_CASE("cuda: variable-length attention drops probabilities in training only", "[cuda]") {
  REQUIRE(torch::cuda::is_available());
  const Layout l;
  torch::manual_seed(3);
  auto qkv = (torch::randn({l.token_index().numel(), 3 * l.hidden()}) * 0.5).to(kGpu, torch::kBFloat16);
  auto sequences = packed_sequences(l.token_index().to(kGpu), l.batch(), l.length);
  auto with = [&](double p, bool training) {
    return packed_attention(qkv, *sequences, {l.heads, ScoreScaling::AfterProduct, p, training});
  };
  CHECK(torch::equal(with(0.1, false), with(0.0, true)));
  const auto dropped = with(0.1, true);
  CHECK(torch::isfinite(dropped).all().item<bool>());
  CHECK_FALSE(torch::equal(dropped, with(0.0, true)));
}

TEST_CASE("cuda: unpadded families attend through the variable-length kernels, equal to padded in fp32",
          "[cuda]") {
  REQUIRE(torch::cuda::is_available());
  // No dropout: the kernels draw their masks from the GPU's generator, the
  // padded path from bernoulli_, so only dropout-free steps compare.
  std::vector<nlohmann::json> sections = bert_like_sections(0.0);
  // Every layer global: fp32 has no local window on the GPU.
  sections.push_back({{"type", "modernbert"}, {"num_hidden_layers", 2}, {"hidden_size", 64},
                      {"num_attention_heads", 4}, {"intermediate_size", 96}, {"global_attn_every_n_layers", 1},
                      {"classifier_pooling", "mean"}});
  for (const auto& section : sections) {
    INFO(section.dump());
    const ExecutionRun padded = train_step_on_gpu(section, Execution::Padded);
    const ExecutionRun unpadded = train_step_on_gpu(section, Execution::Unpadded);
    CHECK(graph_nodes(unpadded.out.loss).count("EfficientAttentionBackward0") == 1);
    CHECK(graph_nodes(padded.out.loss).count("EfficientAttentionBackward0") == 0);
    // Both paths sum in fp32 in another order (the kernel's products in
    // 3xTF32): check_unpadded_equals_padded's bound.
    check_unpadded_equals_padded(padded, unpadded);
  }
}
