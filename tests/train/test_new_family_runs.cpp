// RoBERTa, DeBERTa-v3 and ModernBERT end to end through the CLI, each with a
// tokenizer.json of its kind (tests/tokenizer/golden, trained on GLUE text by
// scripts/golden/tokenizer_json_goldens.py): a short MRPC run trains from a
// random init, evaluates, exports a folder Transformers' layout names, and
// `runner predict` reads the export back. A tokenizer whose ids run past the
// model's embedding table is refused before the first step.
#include "new_family_cases.h"
#include "run_files.h"
#include "shared.h"

#include "catch.h"

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using runner::test::isolated_run_sets;
using runner::test::only_run_dir;
using runner::test::run_summary;
using runner::test::runner_cmd;

namespace {

using FamilyCase = runner::test::NewFamilyCase;
const auto& kCases = runner::test::kNewFamilyCases;

// A width-32, two-layer model of the family from its preset, 4 steps of 8 MRPC pairs.
std::string write_recipe(const std::string& dir, const FamilyCase& c, const std::string& tokenizer,
                         const std::string& precision = "fp32") {
  const std::string path = dir + "/" + std::string(c.type) + "_" + precision + ".toml";
  std::ofstream(path) << "[run]\nname = \"fam\"\nseed = 5\ndevice = \"cpu\"\n"
                      << "[data]\ndataset = \"glue/mrpc\"\nmax_length = 48\ntrain_batch_size = 8\neval_batch_size = 64\n"
                      << "[tokenizer]\npath = \"" << tokenizer << "\"\n"
                      << "[model]\ntype = \"" << c.type << "\"\npreset = \"" << c.preset << "\"\n"
                      << "hidden_size = 32\nnum_hidden_layers = 2\nnum_attention_heads = 4\nintermediate_size = 64\n"
                      << "[optimizer]\nlr = 1e-3\n[train]\nmax_steps = 4\nlog_every = 2\nprecision = \""
                      << precision << "\"\n";
  return path;
}

}  // namespace

TEST_CASE("roberta, deberta-v3 and modernbert train on MRPC with their tokenizers, export and predict",
          "[e2e][new_families]") {
  for (const auto& c : kCases) {
    INFO(c.type);
    const std::string dir = runner::test::tmp_dir(std::string("new_family_run_") + c.type);
    const std::string recipe = write_recipe(dir, c, runner::test::golden_tokenizer_folder(dir, c.tokenizer));
    auto r = runner_cmd("", recipe + isolated_run_sets(dir));
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    const std::string run = only_run_dir(dir, "fam");
    CHECK(run_summary(run).at("final").at("accuracy").is_number());
    std::ifstream config_in(run + "/final/config.json");
    nlohmann::json config = nlohmann::json::parse(config_in);
    CHECK(config.at("model_type") == (std::string(c.type) == "deberta-v2" ? "deberta-v2" : c.type));
    CHECK(fs::exists(run + "/final/tokenizer.json"));
    const std::string input = dir + "/in.jsonl";
    std::ofstream(input) << R"({"text_a": "The cat sat.", "text_b": "A cat was sitting."})" << "\n";
    auto p = runner_cmd("", "predict --model " + run + "/final --input " + input);
    INFO(p.out);
    CHECK(p.exit_code == 0);
    CHECK(p.out.find("\"label\"") != std::string::npos);
  }
}

TEST_CASE("a tokenizer whose ids pass the model's vocabulary is refused before training", "[e2e][new_families]") {
  const std::string dir = runner::test::tmp_dir("new_family_vocab");
  const std::string recipe = write_recipe(dir, kCases[0], runner::test::golden_tokenizer_folder(dir, "roberta_bpe"));
  // roberta_bpe has about 2,000 tokens; a 100-row table cannot hold them.
  auto r = runner_cmd("", recipe + isolated_run_sets(dir) +
                              " --set model.pretrained=" + runner::test::source_dir() + "/tests/model/golden/tiny_roberta");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("tokenizer.path") != std::string::npos);
  CHECK(r.out.find("embedding table has 1000 rows") != std::string::npos);
  CHECK(r.out.find("index out of range") == std::string::npos);
}

TEST_CASE("roberta, deberta-v3 and modernbert train under bf16 autocast on the CPU", "[e2e][new_families]") {
  for (const auto& c : kCases) {
    INFO(c.type);
    const std::string dir = runner::test::tmp_dir(std::string("new_family_bf16_") + c.type);
    auto r = runner_cmd("", write_recipe(dir, c, runner::test::golden_tokenizer_folder(dir, c.tokenizer), "bf16") + isolated_run_sets(dir));
    INFO(r.out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("expected scalar type") == std::string::npos);
    if (r.exit_code == 0) CHECK(run_summary(only_run_dir(dir, "fam")).at("final").at("loss").is_number());
  }
}
