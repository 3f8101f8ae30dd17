// DistilBERT and ELECTRA configs, presets, loading (both weight files, bare
// base-model checkpoints), save_pretrained, predict on the golden folders, and
// a short real run of each family through `runner run`, `export` and `predict`.
#include "catch.h"

#include "export_support.h"
#include "model/distilbert.h"
#include "model/distilbert_component.h"
#include "model/electra.h"
#include "model/electra_component.h"
#include "model/predict.h"
#include "registry/registry.h"
#include "train/checkpoint_io.h"
#include "util/diagnostic.h"

#include <sstream>

using namespace runner;
using runner::test::golden;

namespace {

const std::vector<std::string> kFamilies = {"distilbert", "electra"};

std::string tiny_folder(const std::string& family) { return "tiny_" + family; }

long long parameter_count(torch::nn::Module& m) {
  long long n = 0;
  for (const auto& p : m.parameters()) n += p.numel();
  return n;
}

void check_equal_parameters(TaskModel& a, TaskModel& b) {
  auto pa = a.named_parameters(), pb = b.named_parameters();
  REQUIRE(pa.size() == pb.size());
  for (size_t i = 0; i < pa.size(); ++i) {
    INFO(pa[i].key());
    CHECK(pa[i].key() == pb[i].key());
    CHECK(torch::equal(pa[i].value(), pb[i].value()));
  }
}

// model_parity/batch.json's four MRPC pairs as predict input lines.
std::string parity_input() {
  auto batch = test::read_json(golden("model_parity/batch.json"));
  std::string lines;
  for (size_t i = 0; i < 4; ++i)
    lines += nlohmann::json{{"text_a", batch["text_a"][i]}, {"text_b", batch["text_b"][i]}}.dump() + "\n";
  return lines;
}

}  // namespace

TEST_CASE("family io: a golden folder's config.json picks its family; both weight files agree",
          "[model][family]") {
  for (const auto& family : kFamilies) {
    INFO(family);
    CHECK(model_component_for_folder(golden(tiny_folder(family))) == family);
    auto safetensors = load_model_folder(golden(tiny_folder(family)), golden(tiny_folder(family) + "/model.safetensors"));
    auto bin = load_model_folder(golden(tiny_folder(family)), golden(tiny_folder(family) + "/pytorch_model.bin"));
    CHECK(safetensors.component == family);
    CHECK(safetensors.report.missing.empty());
    CHECK(safetensors.report.unexpected.empty());
    CHECK(bin.report.missing.empty());
    check_equal_parameters(*safetensors.model, *bin.model);
    CHECK(safetensors.model->uses_token_type_ids() == (family == "electra"));
    auto config = safetensors.model->hf_config();
    CHECK(config.at("model_type") == family);
    CHECK(config.at("initializer_range") == 0.2);
  }
  auto distilbert = load_model_folder(golden("tiny_distilbert")).model;
  CHECK(std::dynamic_pointer_cast<DistilBertForSequenceClassification>(distilbert) != nullptr);
  auto electra = load_model_folder(golden("tiny_electra")).model;
  CHECK(std::dynamic_pointer_cast<ElectraForSequenceClassification>(electra) != nullptr);
  // Keys the struct does not model are carried on, so a saved folder keeps them.
  CHECK(electra->hf_config().at("summary_type") == "first");
}

TEST_CASE("family io: predict on the golden folders gives the golden logits", "[model][family]") {
  for (const auto& family : kFamilies) {
    INFO(family);
    PredictCommandOptions options;
    options.model = golden(tiny_folder(family));  // its own vocab.txt is the tokenizer
    options.batch_size = 3;                         // two batches, padded to different lengths
    std::istringstream in(parity_input());
    std::ostringstream out, err;
    REQUIRE(run_predict_command(options, in, out, err) == 0);
    auto expected = test::family_expected(family);
    std::istringstream lines(out.str());
    std::string line;
    size_t n = 0;
    for (; std::getline(lines, line); ++n) {
      auto j = nlohmann::json::parse(line);
      for (size_t k = 0; k < 2; ++k)
        CHECK(j.at("logits")[k].get<double>() == Approx(expected.at("logits")[n][k].get<double>()).margin(1e-5));
      CHECK(j.at("label") == expected.at("predictions")[n]);
    }
    CHECK(n == 4);
  }
}

TEST_CASE("family io: save_pretrained writes the family's config.json and reloads bit-identically",
          "[model][family]") {
  for (const auto& family : kFamilies) {
    INFO(family);
    auto model = test::load_tiny(tiny_folder(family), golden(tiny_folder(family)));
    std::string dir = test::tmp_dir("family_roundtrip_" + family);
    save_pretrained(*model, dir);
    auto config = test::read_json(dir + "/config.json");
    auto golden_config = test::read_json(golden(tiny_folder(family) + "/config.json"));
    CHECK(config.at("model_type") == golden_config.at("model_type"));
    CHECK(config.at("architectures") == golden_config.at("architectures"));
    for (const auto& [key, value] : golden_config.items())
      if (key != "transformers_version") CHECK(config.at(key) == value);
    auto again = load_model_folder(dir);
    CHECK(again.component == family);
    check_equal_parameters(*model, *again.model);
    CHECK(test::safetensors_names(dir + "/model.safetensors") ==
          test::safetensors_names(golden(tiny_folder(family) + "/model.safetensors")));
  }
}

TEST_CASE("family io: a bare base-model checkpoint loads under the family's prefix", "[model][family]") {
  for (const auto& family : kFamilies) {
    INFO(family);
    StateDict bare;
    const std::string prefix = family + ".";
    for (auto& [k, t] : read_weights(golden(tiny_folder(family))))
      if (k.rfind(prefix, 0) == 0) bare.emplace_back(k.substr(prefix.size()), t);
    auto model = test::load_tiny(tiny_folder(family), golden(tiny_folder(family)));
    for (auto& p : model->parameters()) p.detach().zero_();
    auto report = load_state_dict(*model, bare, "bare");
    CHECK(report.unexpected.empty());
    CHECK(report.renamed.size() == bare.size());
    for (const auto& name : report.missing) CHECK(name.rfind(prefix, 0) != 0);  // only the head is missing
    CHECK(report.missing.size() == 4);
  }
}

TEST_CASE("family io: presets have the published sizes", "[model][family]") {
  // DistilBertModel of distilbert-base-uncased: 66,362,880 parameters; the
  // classification head adds pre_classifier (768x768 + 768) and classifier (768x2 + 2).
  DistilBertForSequenceClassification distilbert(distilbert_preset("distilbert-base"));
  CHECK(parameter_count(distilbert) == 66362880 + 590592 + 1538);
  auto small = electra_preset("electra-small");
  CHECK((small.embedding_size == 128 && small.encoder.hidden_size == 256 &&
         small.encoder.num_hidden_layers == 12 && small.encoder.num_attention_heads == 4 &&
         small.encoder.intermediate_size == 1024));
  auto base = electra_preset("electra-base");
  CHECK((base.embedding_size == 768 && base.encoder.hidden_size == 768 &&
         base.encoder.num_hidden_layers == 12 && base.encoder.num_attention_heads == 12 &&
         base.encoder.intermediate_size == 3072));
  ElectraForSequenceClassification electra_base(base);
  // electra-base has no embeddings_project: embedding and hidden width agree.
  CHECK_FALSE(electra_base.named_parameters().contains("electra.embeddings_project.weight"));
  ElectraForSequenceClassification electra_small(small);
  CHECK(electra_small.named_parameters().contains("electra.embeddings_project.weight"));
}

TEST_CASE("family io: configs that do not fit are InputErrors naming the file and key", "[model][family]") {
  nlohmann::json distilbert = {{"dim", 66}, {"n_heads", 4}};
  CHECK_THROWS_AS(distilbert_config_from_json(distilbert, "d/config.json"), InputError);
  CHECK_THROWS_WITH(distilbert_config_from_json(distilbert, "d/config.json"),
                    Catch::Contains("d/config.json") && Catch::Contains("n_heads") &&
                        Catch::Contains("dim 66 is not a multiple of n_heads 4"));
  CHECK_THROWS_WITH(distilbert_config_from_json({{"model_type", "bert"}}, "d/config.json"),
                    Catch::Contains("expected \"distilbert\", found \"bert\""));
  CHECK_THROWS_WITH(distilbert_config_from_json({{"sinusoidal_pos_embds", 1}}, "d/config.json"),
                    Catch::Contains("sinusoidal_pos_embds") && Catch::Contains("expected true or false"));
  CHECK_THROWS_WITH(electra_config_from_json({{"hidden_size", 64}, {"num_attention_heads", 5}}, "e/config.json"),
                    Catch::Contains("e/config.json") && Catch::Contains("num_attention_heads"));
  CHECK_THROWS_WITH(electra_config_from_json({{"embedding_size", 0}}, "e/config.json"),
                    Catch::Contains("embedding_size") && Catch::Contains("positive"));
  CHECK_THROWS_WITH(make_model({{"type", "electra"}, {"hidden_size", 90}}, ModelContext{2, {}}),
                    Catch::Contains("[model] section") && Catch::Contains("num_attention_heads"));
}

TEST_CASE("family io: recipe options override the pretrained config and take the dataset's labels",
          "[model][family]") {
  ModelContext context{2, {"not_equivalent", "equivalent"}};
  auto distilbert = make_model({{"type", "distilbert"}, {"pretrained", golden("tiny_distilbert")},
                                {"seq_classif_dropout", 0.3}, {"execution", "padded"}}, context);
  CHECK(distilbert->execution() == Execution::Padded);
  CHECK(distilbert->hf_config().at("seq_classif_dropout") == 0.3);
  CHECK(distilbert->hf_config().at("dim") == 64);
  CHECK(distilbert->label_name(1) == "equivalent");
  auto electra = make_model({{"type", "electra"}, {"preset", "electra-small"}, {"num_hidden_layers", 1},
                             {"embedding_size", 32}, {"hidden_size", 64}, {"intermediate_size", 128}},
                            ModelContext{1, {}});
  auto config = electra->hf_config();
  CHECK(config.at("num_hidden_layers") == 1);
  CHECK(config.at("problem_type") == "regression");
  ModelBatch b = test::parity_batch();
  b.labels = torch::tensor({0.5f, 1.0f, -1.0f, 2.0f});
  auto out = electra->forward(b);
  CHECK(out.logits.sizes() == torch::IntArrayRef({4, 1}));
  auto mse = (out.logits.squeeze(1) - b.labels).pow(2).mean();
  CHECK(out.loss.item<double>() == Approx(mse.item<double>()).epsilon(1e-6));
}

TEST_CASE("family io: a short run of each family exports and predicts through the CLI", "[model][family]") {
  const std::map<std::string, std::string> tiny = {
      {"distilbert", "--set model.preset=distilbert-base --set model.n_layers=2 --set model.dim=64"
                     " --set model.n_heads=4 --set model.hidden_dim=128"},
      {"electra", "--set model.preset=electra-small --set model.num_hidden_layers=2"
                  " --set model.embedding_size=32 --set model.hidden_size=64 --set model.intermediate_size=128"}};
  for (const auto& family : kFamilies) {
    INFO(family);
    std::string run = test::smoke_run("family_export_" + family,
                                      "--set model.type=" + family + " " + tiny.at(family) +
                                          " --set train.max_steps=3 --set train.checkpoint_every=3");
    std::string to = test::tmp_dir("family_export_to_" + family) + "/hf";
    auto r = test::run_command(test::runner_exe() + " export " + run + " --to " + to);
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    auto config = test::read_json(to + "/config.json");
    auto golden_config = test::read_json(golden(tiny_folder(family) + "/config.json"));
    CHECK(config.at("model_type") == family);
    CHECK(config.at("architectures") == golden_config.at("architectures"));
    CHECK(test::safetensors_names(to + "/model.safetensors") ==
          test::safetensors_names(golden(tiny_folder(family) + "/model.safetensors")));
    auto pairs = test::mrpc_pairs(5);
    auto got = test::cli_predict(to, pairs);
    REQUIRE(got.size() == 5);
    auto want = test::in_process_logits(to, list_checkpoints(run + "/checkpoints").back(), pairs);
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t k = 0; k < 2; ++k) CHECK(got[i][k] == Approx(want[i][k].item<double>()).margin(1e-6));
  }
}
