// Configuration, initialisation, checkpoint interop and save/load round trips.
#include "catch.h"

#include "golden.h"
#include "registry/registry.h"
#include "util/diagnostic.h"

#include <filesystem>

using namespace runner;
using runner::test::golden;

namespace {

long long parameter_count(torch::nn::Module& m) {
  long long n = 0;
  for (const auto& p : m.parameters()) n += p.numel();
  return n;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

TEST_CASE("config: tiny_bert config.json and the presets", "[model]") {
  auto c = read_bert_config(golden("tiny_bert/config.json"));
  CHECK(c.hidden_size == 64);
  CHECK(c.num_hidden_layers == 2);
  CHECK(c.num_attention_heads == 4);
  CHECK(c.intermediate_size == 128);
  CHECK(c.max_position_embeddings == 128);
  CHECK(c.initializer_range == 0.2);
  CHECK(c.hidden_dropout_prob == 0.0);
  CHECK(c.num_labels == 2);
  auto mini = bert_preset("bert-mini");
  CHECK((mini.num_hidden_layers == 4 && mini.hidden_size == 256 && mini.num_attention_heads == 4 &&
         mini.intermediate_size == 1024));
  // bert-base-uncased + a 2-label head: 109,482,240 encoder/pooler parameters
  // (the published BertModel count) + 768*2 + 2 for the classifier.
  BertForSequenceClassification base(bert_preset("bert-base"));
  CHECK(parameter_count(base) == 109483778);
  nlohmann::json bad = {{"hidden_size", 65}, {"num_attention_heads", 4}};
  CHECK_THROWS_AS(bert_config_from_json(bad, "x/config.json"), InputError);
  CHECK_THROWS_WITH(bert_config_from_json(bad, "x/config.json"),
                    Catch::Contains("x/config.json") && Catch::Contains("multiple"));
}

TEST_CASE("init: seed 1234 reproduces Hugging Face's random weights", "[model]") {
  // tiny_bert was made by torch.manual_seed(1234); BertForSequenceClassification(config),
  // then only LayerNorm weights and biases were redrawn (golden README), so every
  // Linear and Embedding weight is exactly HF's init for that seed.
  auto config = read_bert_config(golden("tiny_bert/config.json"));
  torch::manual_seed(1234);
  auto fresh = std::make_shared<BertForSequenceClassification>(config, Init::HuggingFace);
  auto golden_weights = read_weights(golden("tiny_bert/model.safetensors"));
  std::map<std::string, torch::Tensor> want(golden_weights.begin(), golden_weights.end());
  int compared = 0;
  for (const auto& p : fresh->named_parameters()) {
    if (ends_with(p.key(), ".bias")) {
      CHECK(p.value().abs().max().item<double>() == 0.0);
    } else if (ends_with(p.key(), "LayerNorm.weight")) {
      CHECK(p.value().eq(1.0).all().item<bool>());
    } else {
      INFO(p.key());
      CHECK(torch::equal(p.value(), want.at(p.key())));
      ++compared;
    }
  }
  CHECK(compared == 17);  // 3 embeddings + 6 per layer x 2 + pooler + classifier
}

TEST_CASE("save_pretrained round trip is bit-identical", "[model]") {
  auto model = test::load_tiny_bert(golden("tiny_bert/model.safetensors"));
  std::string dir = test::tmp_dir("roundtrip");
  save_pretrained(*model, dir);
  auto again = test::load_tiny_bert(dir);
  auto a = model->named_parameters(), b = again->named_parameters();
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].key() == b[i].key());
    CHECK(torch::equal(a[i].value(), b[i].value()));
  }
  torch::NoGradGuard no_grad;
  auto batch = test::parity_batch();
  CHECK(torch::equal(model->forward(batch).logits, again->forward(batch).logits));
  auto config = test::read_json(dir + "/config.json");
  CHECK(config.at("architectures") == nlohmann::json{"BertForSequenceClassification"});
  CHECK(config.at("torch_dtype") == "float32");
  CHECK(config.at("id2label").at("1") == "LABEL_1");
  CHECK(config.at("label2id").at("LABEL_0") == 0);
  CHECK(config.at("hidden_size") == 64);
}

TEST_CASE("loading: missing, unexpected, legacy and prefix-less keys", "[model]") {
  auto state = read_weights(golden("tiny_bert/model.safetensors"));
  StateDict edited;
  for (auto& [k, t] : state) {
    if (k.rfind("classifier.", 0) == 0) continue;  // a pre-training checkpoint has no head
    std::string key = k.substr(5);                  // a bare BertModel checkpoint: no "bert."
    if (ends_with(key, "LayerNorm.weight")) key = key.substr(0, key.size() - 6) + "gamma";
    edited.emplace_back(key, t);
  }
  edited.emplace_back("cls.predictions.bias", torch::zeros({30522}));
  auto config = read_bert_config(golden("tiny_bert/config.json"));
  BertForSequenceClassification model(config);
  auto report = load_state_dict(model, edited, "edited");
  CHECK(report.missing == std::vector<std::string>{"classifier.weight", "classifier.bias"});
  CHECK(report.unexpected == std::vector<std::string>{"cls.predictions.bias"});
  CHECK(report.renamed.size() == 39);
  CHECK(report.warning().find("classifier.weight, classifier.bias") != std::string::npos);
  auto loaded = model.named_parameters();
  for (auto& [k, t] : state)
    if (k.rfind("classifier.", 0) != 0) CHECK(torch::equal(loaded[k], t));
}

TEST_CASE("loading: a shape mismatch names the key and both shapes", "[model]") {
  auto config = read_bert_config(golden("tiny_bert/config.json"));
  config.num_labels = 3;
  BertForSequenceClassification model(config);
  CHECK_THROWS_WITH(load_state_dict(model, read_weights(golden("tiny_bert/pytorch_model.bin")), "tiny"),
                    Catch::Contains("classifier.weight") && Catch::Contains("[2, 64]") &&
                        Catch::Contains("[3, 64]"));
}

TEST_CASE("component: model.type = bert through the registry", "[model]") {
  REQUIRE(registry().find(Kind::Model, "bert") != nullptr);
  nlohmann::json section = {{"type", "bert"}, {"pretrained", golden("tiny_bert")},
                            {"hidden_dropout_prob", 0.25}, {"execution", "padded"}};
  ModelContext context{2, {"not_equivalent", "equivalent"}};
  auto model = make_model(section, context);
  CHECK(model->execution() == Execution::Padded);
  auto config = model->hf_config();
  CHECK(config.at("hidden_dropout_prob") == 0.25);
  CHECK(config.at("id2label").at("0") == "not_equivalent");
  CHECK(config.at("label2id").at("equivalent") == 1);
  auto golden_weights = read_weights(golden("tiny_bert/model.safetensors"));
  std::map<std::string, torch::Tensor> want(golden_weights.begin(), golden_weights.end());
  CHECK(torch::equal(model->named_parameters()["classifier.weight"], want.at("classifier.weight")));
  // A regression head: one output, MSE loss.
  auto fresh = make_model({{"type", "bert"}, {"preset", "bert-tiny"}, {"max_position_embeddings", 128}},
                          ModelContext{1, {}});
  ModelBatch b = test::parity_batch();
  b.labels = torch::tensor({0.5f, 1.0f, -1.0f, 2.0f});
  auto out = fresh->forward(b);
  CHECK(out.logits.sizes() == torch::IntArrayRef({4, 1}));
  auto mse = (out.logits.squeeze(1) - b.labels).pow(2).mean();
  CHECK(out.loss.item<double>() == Approx(mse.item<double>()).epsilon(1e-6));
}
