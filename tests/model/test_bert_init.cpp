// Random initialisation parity with Hugging Face: golden/README.md section 2
// says tiny_bert was made by torch.manual_seed(1234) then
// BertForSequenceClassification(config), after which only the LayerNorm weights
// and the biases were redrawn from a separate generator. Every other parameter
// is therefore exactly what transformers' initialisation drew from the seeded
// global generator, and the same seed must give the same tensors here.
#include "catch.h"

#include "golden.h"
#include "model/checkpoint.h"

using namespace runner;
using runner::test::golden;

namespace {

bool redrawn_after_init(const std::string& name) {  // golden/README.md section 2, step 2
  auto ends_with = [&](const std::string& tail) {
    return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends_with("LayerNorm.weight") || ends_with("bias");
}

// tiny_bert's config initialised from `seed`, by parameter name.
torch::OrderedDict<std::string, torch::Tensor> initialised_tiny_bert(uint64_t seed) {
  auto config = read_bert_config(golden("tiny_bert/config.json"));
  torch::manual_seed(seed);
  return std::make_shared<BertForSequenceClassification>(config, Init::HuggingFace)->named_parameters();
}

}  // namespace

TEST_CASE("init: seed 1234 draws tiny_bert's Hugging Face weights bit for bit", "[model]") {
  StateDict want = read_weights(golden("tiny_bert/model.safetensors"));
  auto params = initialised_tiny_bert(1234);
  int compared = 0;
  for (const auto& [name, tensor] : want) {
    if (redrawn_after_init(name)) continue;
    INFO(name);
    REQUIRE(params.contains(name));
    CHECK(torch::equal(params[name], tensor));
    ++compared;
  }
  // Embeddings (3), per layer Q, K, V, attention output, intermediate, output (6 x 2), pooler, classifier.
  CHECK(compared == 17);
}

TEST_CASE("init: another seed draws other weights", "[model]") {
  StateDict want = read_weights(golden("tiny_bert/model.safetensors"));
  auto params = initialised_tiny_bert(1235);
  for (const auto& [name, tensor] : want)
    if (!redrawn_after_init(name)) CHECK_FALSE(torch::equal(params[name], tensor));
}
