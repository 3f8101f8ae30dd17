// A recipe naming model.pretrained and no tokenizer.path
// tokenizes with the model folder's own vocabulary (AutoTokenizer's default),
// not bert-base-uncased's; a path the recipe gives is kept.
#include "catch.h"

#include "shared.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using runner::test::run_command;
using runner::test::runner_exe;

namespace {

// A model folder with its own tokenizer: bert-base-uncased's config and vocab,
// and an empty weight file (print-config reads no tensor).
std::string model_folder(const std::string& dir) {
  std::string model = dir + "/my-model";
  fs::create_directories(model);
  for (const char* f : {"config.json", "vocab.txt", "tokenizer_config.json"})
    fs::copy_file(runner::test::shared_dir() + "/models/bert-base-uncased/" + f, model + "/" + f);
  std::ofstream(model + "/model.safetensors") << "";
  return model;
}

nlohmann::json resolved_tokenizer(const std::string& sets) {
  auto r = run_command(runner_exe() + " print-config " + runner::test::smoke_recipe() + " --format json" + sets +
                       " 2>/dev/null");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out).at("tokenizer");
}

}  // namespace

TEST_CASE("the tokenizer defaults to the pretrained model's folder", "[cli]") {
  std::string model = model_folder(runner::test::tmp_dir("model-tokenizer"));
  CHECK(resolved_tokenizer(" --set model.pretrained=" + model)["path"] == model);
  // Given, it is kept.
  std::string other = fs::weakly_canonical(runner::test::shared_dir() + "/models/bert-base-uncased").string();
  CHECK(resolved_tokenizer(" --set model.pretrained=" + model + " --set tokenizer.path=" + other)["path"] ==
        other);
  // Without a pretrained model the declared default stays.
  CHECK(resolved_tokenizer("")["path"].get<std::string>().find("bert-base-uncased") != std::string::npos);
}

TEST_CASE("the tokenizer defaults to a pretrained folder whose tokenizer is a SentencePiece model", "[cli]") {
  // DeBERTa-v3 as the Hub has it: spm.model, no tokenizer.json or vocab.txt.
  std::string dir = runner::test::tmp_dir("model-tokenizer-spm"), model = dir + "/my-deberta";
  fs::create_directories(model);
  fs::copy_file(runner::test::shared_dir() + "/models/bert-base-uncased/config.json", model + "/config.json");
  fs::copy_file(runner::test::source_dir() + "/tests/tokenizer/golden/deberta_spm.spm.model", model + "/spm.model");
  std::ofstream(model + "/model.safetensors") << "";
  CHECK(resolved_tokenizer(" --set model.pretrained=" + model)["path"] == model);
}
