// Each encoder layer is recomputed in
// the backward (its node is in the graph, one per layer), and the gradients are
// those of the plain backward: the recomputation draws the same dropout masks
// from the generator's state at the forward, and leaves the generator where the
// forward left it. Each family, padded and unpadded; LoRA adapters too.
#include "catch.h"
#include "golden.h"
#include "model/lora_options.h"
#include "model/model_factory.h"

#include <functional>
#include <set>
#include <type_traits>
#include <string>

using namespace runner;

namespace {

// How many autograd nodes the loss depends on are recomputed layers (a C++
// Function's node is named by its demangled type, namespaces included).
long long recomputed_layers(const torch::Tensor& loss) {
  long long count = 0;
  std::set<torch::autograd::Node*> seen;
  // The node pointer as this LibTorch has it: a shared_ptr in 1.13, an intrusive_ptr in 2.15.
  using NodePtr = std::decay_t<decltype(loss.grad_fn())>;
  std::function<void(const NodePtr&)> visit = [&](const NodePtr& node) {
    if (!node || !seen.insert(node.get()).second) return;
    count += node->name().find("RecomputedLayer") != std::string::npos;
    for (const auto& edge : node->next_edges()) visit(edge.function);
  };
  visit(loss.grad_fn());
  return count;
}

struct Backward {
  std::vector<torch::Tensor> grads;
  long long recomputed = 0;
  torch::Tensor generator_after;  // the CPU generator's state after the backward
};

// One forward and backward of a seeded model in training mode (dropout on),
// with `lora`'s adapters when it is enabled: the gradients of what trains, the
// frozen base getting none.
Backward backward_of(const nlohmann::json& section, bool checkpointing, const LoraSettings& lora = {}) {
  torch::manual_seed(3);
  auto model = build_model(section, ModelContext{2, {}}, {}, lora).model;
  if (lora.enabled) {  // B starts at zero, which would leave A without a gradient: give it values.
    torch::NoGradGuard no_grad;
    for (auto& p : model->named_parameters())
      if (p.key().find("lora_B") != std::string::npos) p.value().normal_(0, 0.1);
  }
  model->set_gradient_checkpointing(checkpointing);
  model->train();
  torch::manual_seed(11);  // the dropout masks' draws
  ModelOutput out = model->forward(test::parity_batch());
  Backward b;
  b.recomputed = recomputed_layers(out.loss);
  out.loss.backward();
  for (const auto& p : model->parameters()) {
    if (p.requires_grad()) b.grads.push_back(p.grad().clone());
    else CHECK_FALSE(p.grad().defined());
  }
  b.generator_after = at::detail::getDefaultCPUGenerator().get_state();
  return b;
}

}  // namespace

TEST_CASE("gradient checkpointing recomputes every layer and gives the plain backward's gradients",
          "[model]") {
  const std::vector<nlohmann::json> sections = {
      {{"type", "bert"}, {"preset", "bert-tiny"}},
      {{"type", "bert"}, {"preset", "bert-tiny"}, {"execution", "padded"}},
      {{"type", "distilbert"}, {"preset", "distilbert-base"}, {"n_layers", 2}, {"dim", 64}, {"n_heads", 2},
       {"hidden_dim", 128}},
      {{"type", "electra"}, {"preset", "electra-small"}, {"num_hidden_layers", 2}, {"embedding_size", 32},
       {"hidden_size", 64}, {"intermediate_size", 128}},
      {{"type", "roberta"}, {"preset", "roberta-base"}, {"num_hidden_layers", 2}, {"hidden_size", 64},
       {"num_attention_heads", 2}, {"intermediate_size", 128}, {"execution", "padded"}},
      {{"type", "deberta-v2"}, {"preset", "deberta-v3-base"}, {"num_hidden_layers", 2}, {"hidden_size", 64},
       {"num_attention_heads", 2}, {"intermediate_size", 128}, {"execution", "padded"}},
      {{"type", "modernbert"}, {"preset", "modernbert-base"}, {"num_hidden_layers", 2}, {"hidden_size", 64},
       {"num_attention_heads", 2}, {"intermediate_size", 128}, {"execution", "padded"}},
  };
  for (const auto& section : sections) {
    INFO(section.dump());
    Backward plain = backward_of(section, false), recomputed = backward_of(section, true);
    CHECK(plain.recomputed == 0);
    CHECK(recomputed.recomputed == 2);  // every preset above has 2 layers
    REQUIRE(plain.grads.size() == recomputed.grads.size());
    // The recomputation runs the same kernels on the same inputs with the same
    // masks: the same bits, so no tolerance.
    for (size_t i = 0; i < plain.grads.size(); ++i) CHECK(torch::equal(plain.grads[i], recomputed.grads[i]));
    CHECK(torch::equal(plain.generator_after, recomputed.generator_after));
  }
}

// LoRA adapters inside the recomputed layers, with dropout on their input: the
// adapters' gradients are the plain backward's, and the frozen base gets none.
TEST_CASE("gradient checkpointing with LoRA adapters gives the plain backward's adapter gradients", "[model][lora]") {
  const std::vector<nlohmann::json> sections = {
      {{"type", "bert"}, {"preset", "bert-tiny"}},
      {{"type", "deberta-v2"}, {"preset", "deberta-v3-base"}, {"num_hidden_layers", 2}, {"hidden_size", 64},
       {"num_attention_heads", 2}, {"intermediate_size", 128}, {"execution", "padded"}},
  };
  for (const auto& section : sections) {
    INFO(section.dump());
    const LoraSettings lora = lora_settings_from({{"enabled", true}, {"r", 4}, {"alpha", 8}, {"dropout", 0.1}});
    Backward plain = backward_of(section, false, lora), recomputed = backward_of(section, true, lora);
    CHECK(recomputed.recomputed == 2);
    REQUIRE(plain.grads.size() == recomputed.grads.size());
    REQUIRE(plain.grads.size() > 4);  // two layers' query and value adapters, and the classifier
    // The same kernels on the same inputs with the same adapter dropout masks: the same bits.
    for (size_t i = 0; i < plain.grads.size(); ++i) {
      CHECK(torch::equal(plain.grads[i], recomputed.grads[i]));
      CHECK(plain.grads[i].abs().max().item<double>() > 0);
    }
    CHECK(torch::equal(plain.generator_after, recomputed.generator_after));
  }
}

TEST_CASE("gradient checkpointing is off in evaluation and without a backward", "[model]") {
  torch::manual_seed(3);
  auto model = make_model({{"type", "bert"}, {"preset", "bert-tiny"}}, ModelContext{2, {}});
  model->set_gradient_checkpointing(true);
  model->eval();
  CHECK(recomputed_layers(model->forward(test::parity_batch()).loss) == 0);
  model->train();
  torch::NoGradGuard no_grad;
  CHECK_FALSE(model->forward(test::parity_batch()).loss.requires_grad());
}
