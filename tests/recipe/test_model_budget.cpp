// The parameter count validate uses to refuse models this machine cannot
// train, against the counts Hugging Face's models report for the same
// configurations (sum(p.numel() for p in model.parameters()) in transformers).
#include "catch.h"

#include "model/model_budget.h"

using namespace runner;

TEST_CASE("parameter counts equal Hugging Face's for the presets", "[recipe][budget]") {
  // BertForSequenceClassification(bert-base-uncased config, 2 labels): BertModel's
  // published 109,482,240 plus a 768 x 2 classifier with bias (1,538).
  CHECK(parameter_count(bert_preset("bert-base")).total() == 109483778.0);
  // DistilBertForSequenceClassification(distilbert-base-uncased, 2 labels): 66,955,010.
  CHECK(parameter_count(distilbert_preset("distilbert-base")).total() == 66955010.0);
  // ElectraForSequenceClassification(google/electra-small-discriminator, 2 labels):
  // ElectraModel's 13,483,008 plus the head's dense (256 x 256 + 256) and out_proj (256 x 2 + 2).
  CHECK(parameter_count(electra_preset("electra-small")).total() == 13549314.0);
}

TEST_CASE("a model over the memory is refused with its size and the machine's", "[recipe][budget]") {
  BertConfig tiny = bert_preset("bert-tiny");
  auto shape = [&] { return ModelShape{parameter_count(tiny), 512, "the [model] section"}; };
  nlohmann::json recipe = {{"data", {{"max_length", 128}}}};
  double bytes = parameter_count(tiny).total() * kTrainingBytesPerParameter;
  CHECK(check_model_in_recipe(recipe, shape, bytes).empty());
  Diagnostics d = check_model_in_recipe(recipe, shape, bytes - 1);
  REQUIRE(d.size() == 1);
  CHECK(d[0].key_path == "model");
  CHECK_THAT(d[0].message, Catch::Contains("4.4 M parameters"));
  CHECK_THAT(d[0].message, Catch::Contains("this machine has 33 MiB"));
  CHECK(check_model_in_recipe(recipe, shape, 0).empty());  // unknown memory: no refusal
}

TEST_CASE("a hostile size does not overflow the count", "[recipe][budget]") {
  BertConfig c = bert_preset("bert-tiny");
  c.hidden_size = 1LL << 40;
  c.num_hidden_layers = 1LL << 40;
  double n = parameter_count(c).total();
  CHECK(n > 1e36);  // 2^40 layers of 4 * (2^40)^2 weights at least
}
