// What ships must hold: every recipe validates, the committed schema is the
// generated one, and shipped recipes point editors at it.
#include "catch.h"

#include "glue_files.h"
#include "shared.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <array>
#include <vector>
#include <sstream>

namespace fs = std::filesystem;
using runner::test::run_command;

static std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// SQuAD JSON (v1.1 or v2.0) of the smoke questions (recipes/smoke/qa/*.jsonl):
// v1.1 keeps the answered ones only, as SQuAD v1.1 has no other.
static void write_squad_json(const std::string& jsonl, const std::string& out, bool v1) {
  nlohmann::json paragraphs = nlohmann::json::array();
  std::ifstream in(jsonl);
  for (std::string line; std::getline(in, line);) {
    nlohmann::json q = nlohmann::json::parse(line), answers = nlohmann::json::array();
    for (size_t i = 0; i < q["answers"]["text"].size(); ++i)
      answers.push_back({{"text", q["answers"]["text"][i]}, {"answer_start", q["answers"]["answer_start"][i]}});
    if (v1 && answers.empty()) continue;
    nlohmann::json qa = {{"id", q["id"]}, {"question", q["question"]}, {"answers", answers}};
    if (!v1) qa["is_impossible"] = answers.empty();
    paragraphs.push_back({{"context", q["context"]}, {"qas", {qa}}});
  }
  nlohmann::json doc = {{"version", v1 ? "v1.1" : "v2.0"}, {"data", {{{"title", "smoke"}, {"paragraphs", paragraphs}}}}};
  std::ofstream(out) << doc.dump();
}

// A data root holding every GLUE task: ../shared's MRPC and SST-2 (linked) and
// the others made up in their own layouts, so that each task's recipe finds its
// folder without a network. Beside them conll2003, squad and squad_v2 in their
// publishers' file names, made of the smoke NER sentences and questions.
static std::string glue_data_root() {
  std::string root = runner::test::tmp_dir("shipped_glue_data");
  fs::create_directories(root + "/glue");
  for (const char* folder : {"MRPC", "SST-2"})
    fs::create_directory_symlink(runner::test::shared_dir() + "/data/glue/" + folder, root + "/glue/" + folder);
  for (const auto& t : runner::test::made_up_glue_tasks()) runner::test::write_glue_task(root + "/glue", t.task);
  const std::string smoke = runner::test::source_dir() + "/recipes/smoke/";
  fs::create_directories(root + "/conll2003");
  fs::copy_file(smoke + "ner/train.conll", root + "/conll2003/train.txt");
  for (const char* split : {"valid.txt", "test.txt"}) fs::copy_file(smoke + "ner/dev.conll", root + "/conll2003/" + split);
  for (const auto& [folder, version] : {std::pair<std::string, std::string>{"squad", "1.1"}, {"squad_v2", "2.0"}}) {
    fs::create_directories(root + "/" + folder);
    for (const char* split : {"train", "dev"})
      write_squad_json(smoke + "qa/" + split + ".jsonl", root + "/" + folder + "/" + split + "-v" + version + ".json",
                       version == "1.1");
  }
  return root;
}

// A models root holding ../shared's models (linked) and, under the Hub ids the
// RoBERTa, DeBERTa-v3, ModernBERT and cased BERT recipes name, small stand-ins of each
// family: a golden tiny model with room for 512 tokens and a tokenizer.json of
// its kind, so that those recipes validate without a network.
static std::string models_root() {
  const std::string root = runner::test::tmp_dir("shipped_models");
  for (const auto& e : fs::directory_iterator(runner::test::shared_dir() + "/models"))
    fs::create_directory_symlink(e.path(), root + "/" + e.path().filename().string());
  const std::string src = runner::test::source_dir() + "/tests/";
  const std::vector<std::array<std::string, 3>> stand_ins = {  // Hub id, golden model, golden tokenizer
      {"FacebookAI/roberta-base", "tiny_roberta", "roberta_bpe"},
      {"microsoft/deberta-v3-base", "tiny_deberta-v2", "deberta_spm"},
      {"answerdotai/ModernBERT-base", "tiny_modernbert", "modernbert_bpe"},
      {"bert-base-cased", "token/tiny_bert", "wordpiece_seq"}};
  for (const auto& [id, model, tokenizer] : stand_ins) {
    const std::string folder = root + "/" + id;
    fs::create_directories(folder);
    fs::copy_file(src + "model/golden/" + model + "/model.safetensors", folder + "/model.safetensors");
    fs::copy_file(src + "tokenizer/golden/" + tokenizer + ".tokenizer.json", folder + "/tokenizer.json");
    std::ifstream in(src + "model/golden/" + model + "/config.json");
    nlohmann::json config = nlohmann::json::parse(in);
    config["max_position_embeddings"] = 514;  // the recipes' 384 tokens at most (RoBERTa's offset of 2 too)
    std::ofstream(folder + "/config.json") << config.dump(1);
  }
  return root;
}

TEST_CASE("every shipped recipe validates", "[recipe]") {
  fs::path root = fs::path(runner::test::source_dir()) / "recipes";
  const std::string data_root = glue_data_root();
  const std::string models = models_root();
  int count = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    std::string ext = e.path().extension().string();
    if (ext != ".toml" && ext != ".yaml" && ext != ".yml") continue;
    if (e.path().parent_path().filename() == "sweeps") continue;  // sweep files, not recipes
    auto r = run_command("RUNNER_DATA=" + data_root + " RUNNER_MODELS=" + models + " " + runner::test::runner_exe() +
                         " validate " + e.path().string());
    INFO(e.path().string() << "\n" << r.out);
    // The pretrained folder of a recipe must hold weights: ../shared's
    // bert-base-uncased has its config and tokenizer only, so there the recipe is
    // refused for that reason alone, naming the folder.
    if (r.exit_code != 0 && r.out.find("has config.json but no weights") != std::string::npos &&
        r.out.find(" 1 error;") != std::string::npos)
      continue;
    CHECK(r.exit_code == 0);
    // Editors find the schema: Taplo's directive in TOML, the YAML language server's in YAML.
    std::string text = slurp(e.path());
    std::string first = text.substr(0, 200);
    CHECK(first.find(ext == ".toml" ? "#:schema " : "# yaml-language-server: $schema=") == 0);
    // The same file trains on a GPU machine's GPU and a CPU machine's CPU.
    auto device = run_command(runner::test::runner_exe() + " print-config --format json " + e.path().string() +
                              " 2>/dev/null | grep '\"device\"'");
    CHECK((text.find("device = \"auto\"\n") != std::string::npos || text.find("device: auto\n") != std::string::npos));
    if (device.exit_code == 0) CHECK_THAT(device.out, Catch::Contains("\"device\": \"auto\""));
    ++count;
  }
  CHECK(count >= 11);
}

TEST_CASE("the conll2003 and squad recipes read the dataset cache, and say `runner fetch` when it lacks them",
          "[recipe]") {
  const std::string data = glue_data_root(), models = models_root();
  const std::string empty = runner::test::tmp_dir("shipped_empty_root");
  const std::string caches = runner::test::tmp_dir("shipped_dataset_cache");
  const std::string env = "HF_HUB_OFFLINE=1 RUNNER_DATA=" + empty + " RUNNER_MODELS=" + models + " RUNNER_CACHE=";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"conll2003_bert", "conll2003"}, {"conll2003_roberta", "conll2003"}, {"squad_bert", "squad"},
      {"squad_v2_bert", "squad_v2"}};
  for (const auto& [recipe, name] : cases) {
    const std::string path = runner::test::source_dir() + "/recipes/" + recipe + ".toml";
    const std::string cache = caches + "/" + recipe;
    auto missing = run_command(env + cache + " " + runner::test::runner_exe() + " validate " + path);
    INFO(recipe << "\n" << missing.out);
    CHECK(missing.exit_code == 2);
    CHECK_THAT(missing.out, Catch::Contains("run `runner fetch " + name + "`"));
    // As `runner fetch` leaves it: the publisher's files in $RUNNER_CACHE/datasets/<name>.
    fs::create_directories(cache + "/datasets/" + name);
    fs::copy(data + "/" + name, cache + "/datasets/" + name);
    auto cached = run_command(env + cache + " " + runner::test::runner_exe() + " validate " + path);
    INFO(cached.out);
    // ../shared's bert-base-uncased has no weights: that is the one error the squad recipes may have.
    const bool only_weights = cached.out.find("has config.json but no weights") != std::string::npos &&
                              cached.out.find(" 1 error;") != std::string::npos;
    CHECK((cached.exit_code == 0 || only_weights));
    CHECK(cached.out.find("data.") == std::string::npos);
  }
}

TEST_CASE("the committed schema equals `runner schema`", "[recipe]") {
  auto r = run_command(runner::test::runner_exe() + " schema 2>/dev/null");
  REQUIRE(r.exit_code == 0);
  std::string committed = slurp(fs::path(runner::test::source_dir()) / "schemas/recipe.schema.json");
  INFO("regenerate with: ./build/runner schema > schemas/recipe.schema.json");
  CHECK(r.out == committed);
}

TEST_CASE("print-config fills every default and prints TOML, YAML and JSON", "[recipe]") {
  std::string recipe = runner::test::source_dir() + "/recipes/smoke/mrpc_smoke.toml";
  auto toml = run_command(runner::test::runner_exe() + " print-config " + recipe);
  REQUIRE(toml.exit_code == 0);
  CHECK(toml.out.find("[topology]\nprocesses_per_node = 1\n") != std::string::npos);
  CHECK(toml.out.find("keep_last = 2\n") != std::string::npos);  // a default the recipe does not set
  auto json = run_command(runner::test::runner_exe() + " print-config --format json " + recipe);
  CHECK(json.out.find("\"keep_last\": 2") != std::string::npos);
  auto bad = run_command(runner::test::runner_exe() + " print-config --format xml " + recipe);
  CHECK(bad.exit_code == 2);
  CHECK(bad.out.find("expected toml, yaml or json, found \"xml\"") != std::string::npos);
}
