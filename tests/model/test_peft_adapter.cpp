// Adapter folders written by PEFT itself (tests/model/golden/peft_adapters,
// scripts/golden/peft_adapter_folders.py) read onto their bases: every family,
// with and without rsLoRA, modules saved whole, a head of another size than the
// base's; the logits PEFT gave, and refusals for what the runner does not read.
#include "head_parity.h"
#include "shared.h"

#include "model/peft_adapter.h"
#include "util/diagnostic.h"
#include "catch.h"

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace runner;
using namespace runner::test;

namespace {

std::string adapters(const std::string& rel) { return source_dir() + "/tests/model/golden/peft_adapters/" + rel; }

nlohmann::json expected_of(const std::string& name) {
  std::ifstream in(adapters(name + "/expected.json"));
  return nlohmann::json::parse(in);
}

ModelBatch batch_of(const nlohmann::json& expected) {
  auto ids = expected.at("input_ids").get<std::vector<std::vector<int64_t>>>();
  auto mask = expected.at("attention_mask").get<std::vector<std::vector<int64_t>>>();
  const int64_t rows = static_cast<int64_t>(ids.size()), cols = static_cast<int64_t>(ids[0].size());
  ModelBatch b;
  b.input_ids = torch::zeros({rows, cols}, torch::kInt64);
  b.attention_mask = torch::zeros({rows, cols}, torch::kInt64);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) b.input_ids[r][c] = ids[r][c], b.attention_mask[r][c] = mask[r][c];
  b.token_type_ids = torch::zeros({rows, cols}, torch::kInt64);  // Transformers' default without them
  return b;
}

// A copy of a golden adapter folder whose adapter_config.json has `key` set to `value`.
std::string edited_copy(const std::string& name, const std::string& key, const nlohmann::json& value) {
  const std::string dir = tmp_dir("peft-edited-" + key);
  fs::copy(adapters(name), dir, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  std::ifstream in(dir + "/adapter_config.json");
  nlohmann::json config = nlohmann::json::parse(in);
  config[key] = value;
  std::ofstream(dir + "/adapter_config.json") << config.dump(2);
  return dir;
}

std::string refusal_of(const std::string& folder, const std::string& base) {
  try {
    load_adapter_folder(folder, base);
  } catch (const InputError& e) {
    return e.diagnostic().format();
  }
  return "";
}

}  // namespace

TEST_CASE("PEFT's own adapter folders load onto their bases and give PEFT's logits", "[model][lora]") {
  torch::NoGradGuard no_grad;
  at::set_num_threads(1);
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(adapters(""))) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    INFO(name);
    const nlohmann::json expected = expected_of(name);
    REQUIRE(is_adapter_folder(entry.path().string()));
    CHECK(read_adapter_config(entry.path().string()).base == expected.at("base").get<std::string>());
    LoadedModel loaded = load_adapter_folder(entry.path().string(), source_dir() + "/" + expected.at("base").get<std::string>());
    CHECK(loaded.report.missing.empty());  // the base and the adapter give every weight
    CHECK(loaded.model->num_labels() == expected.at("num_labels").get<long long>());
    loaded.model->eval();
    const torch::Tensor logits = loaded.model->forward(batch_of(expected)).logits;
    std::vector<double> flat;
    for (const auto& row : expected.at("logits"))
      for (const auto& v : row) flat.push_back(v.get<double>());
    const torch::Tensor want =
        torch::tensor(flat, torch::kFloat64).reshape({static_cast<int64_t>(expected.at("logits").size()), -1});
    // The adapted path adds one rank-4 product per target (a few more roundings
    // of 2^-24) to the family parity's kFp32Parity of max(1, |logit|).
    const double bound = kFp32Parity * std::max(1.0, want.abs().max().item<double>());
    CHECK(max_abs(logits, want) <= bound);
    // And the adapters matter: the logits are far from the base model's.
    CHECK(expected.at("max_abs_diff_base_model").get<double>() > 100 * bound);
    ++cases;
  }
  CHECK(cases >= 14);
}

TEST_CASE("an adapter folder the runner cannot read as PEFT meant it is refused by key", "[model][lora]") {
  const std::string base = source_dir() + "/tests/model/golden/token/tiny_bert";
  CHECK_THAT(refusal_of(edited_copy("bert", "use_dora", true), base),
             Catch::Contains("adapter_config.json") && Catch::Contains("use_dora"));
  CHECK_THAT(refusal_of(edited_copy("bert", "target_modules", ".*query"), base),
             Catch::Contains("target_modules") && Catch::Contains("regular expression"));
  CHECK_THAT(refusal_of(edited_copy("bert", "rank_pattern", {{"query", 8}}), base), Catch::Contains("rank_pattern"));
  CHECK_THAT(refusal_of(edited_copy("bert", "peft_type", "IA3"), base), Catch::Contains("LORA"));
  CHECK_THAT(refusal_of(edited_copy("bert", "task_type", "CAUSAL_LM"), base),
             Catch::Contains("task_type") && Catch::Contains("SEQ_CLS"));
  // Another family's base: its parameters are not the adapter's.
  const std::string roberta = source_dir() + "/tests/model/golden/tiny_roberta";
  CHECK_THAT(refusal_of(adapters("bert"), roberta), Catch::Contains("adapter_model.safetensors") &&
                                                         Catch::Contains("base_model_name_or_path"));
  // A folder without its weights file.
  const std::string bare = tmp_dir("peft-no-weights");
  fs::copy_file(adapters("bert/adapter_config.json"), bare + "/adapter_config.json");
  CHECK_THAT(refusal_of(bare, base), Catch::Contains("adapter_model.safetensors"));
}
