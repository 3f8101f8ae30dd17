// Token classification end to end on every family: a tiny model of each,
// with a tokenizer of its kind, trains 4 steps on the smoke NER files,
// evaluates with seqeval's scores and writes a ...ForTokenClassification
// folder; and bf16 autocast trains the same task with a first loss within
// bf16's rounding of fp32's.
#include "new_family_cases.h"
#include "run_files.h"
#include "shared.h"

#include "catch.h"

#include <cmath>
#include <fstream>

using runner::test::events;
using runner::test::only_run_dir;
using runner::test::run_command;

namespace {

struct TokenFamily {
  std::string type, model_lines, tokenizer_lines;
};

std::vector<TokenFamily> families(const std::string& dir) {
  const std::string bert_vocab = "path = \"" + runner::test::shared_dir() + "/models/bert-base-uncased\"\n";
  const std::string small = "hidden_size = 32\nnum_hidden_layers = 2\nnum_attention_heads = 4\nintermediate_size = 64\n";
  std::vector<TokenFamily> out = {
      {"bert", "preset = \"bert-tiny\"\n", bert_vocab},
      {"distilbert", "preset = \"distilbert-base\"\nn_layers = 2\ndim = 32\nn_heads = 4\nhidden_dim = 64\n", bert_vocab},
      {"electra", "preset = \"electra-small\"\nnum_hidden_layers = 2\n", bert_vocab}};
  for (const auto& c : runner::test::kNewFamilyCases)
    out.push_back({c.type, std::string("preset = \"") + c.preset + "\"\n" + small,
                   "path = \"" + runner::test::golden_tokenizer_folder(dir, c.tokenizer) + "\"\n"});
  return out;
}

std::string write_recipe(const std::string& dir, const TokenFamily& f) {
  const std::string path = dir + "/" + f.type + ".toml";
  std::ofstream(path) << "[run]\nname = \"tok\"\nseed = 11\ndevice = \"cpu\"\n"
                      << "[data]\ndataset = \"conll\"\ndir = \"" << runner::test::source_dir() << "/recipes/smoke/ner\"\n"
                      << "max_length = 64\ntrain_batch_size = 8\neval_batch_size = 32\n"
                      // Byte-level BPE reads a word given alone as a sentence's only with its space.
                      << "add_prefix_space = " << (f.type == "roberta" || f.type == "modernbert" ? "true" : "false") << "\n"
                      << "[tokenizer]\ntype = \"wordpiece\"\n" << f.tokenizer_lines
                      << "[model]\ntype = \"" << f.type << "\"\n" << f.model_lines
                      << "[optimizer]\nlr = 2e-3\n[train]\nmax_steps = 4\nlog_every = 1\n";
  return path;
}

}  // namespace

TEST_CASE("token classification trains, evaluates and exports on every family", "[train][token]") {
  const std::string root = runner::test::tmp_dir("token_families");
  for (const auto& f : families(root)) {
    INFO(f.type);
    const std::string out = root + "/" + f.type;
    auto r = run_command(runner::test::runner_exe() + " run " + write_recipe(root, f) + " --set run.output_dir=" + out + "/runs");
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    const std::string run = only_run_dir(out, "tok");
    const auto trains = events(run, "train"), evals = events(run, "eval");
    REQUIRE(trains.size() == 4);
    REQUIRE_FALSE(evals.empty());
    for (const auto& t : trains) CHECK(std::isfinite(t["loss"].get<double>()));
    const auto& e = evals.back();
    CHECK(e["examples"].get<int>() > 0);
    for (const char* metric : {"token_accuracy", "entity_f1", "entity_precision", "entity_recall"}) {
      INFO(metric);
      REQUIRE(e.contains(metric));
      CHECK(e[metric].get<double>() >= 0.0);
      CHECK(e[metric].get<double>() <= 1.0);
    }
    std::ifstream config_in(run + "/final/config.json");
    const nlohmann::json config = nlohmann::json::parse(config_in);
    CHECK(config["architectures"][0].get<std::string>().find("ForTokenClassification") != std::string::npos);
    CHECK(config["id2label"].size() > 2);  // the files' tags, not two classes
  }
}

TEST_CASE("token classification under bf16 autocast starts at fp32's loss within bf16 rounding", "[train][token]") {
  const std::string root = runner::test::tmp_dir("token_bf16");
  const TokenFamily bert = families(root).front();
  const std::string recipe = write_recipe(root, bert);
  double first[2] = {0, 0};
  int i = 0;
  for (const char* precision : {"fp32", "bf16"}) {
    const std::string out = root + "/" + precision;
    auto r = run_command(runner::test::runner_exe() + " run " + recipe + " --set run.output_dir=" + out + "/runs" +
                         " --set train.precision=" + precision);
    INFO(r.out);
    REQUIRE(r.exit_code == 0);
    const auto trains = events(only_run_dir(out, "tok"), "train");
    REQUIRE(trains.size() == 4);
    for (const auto& t : trains) CHECK(std::isfinite(t["loss"].get<double>()));
    first[i++] = trains.front()["loss"].get<double>();
  }
  // The first step's loss is the untrained model's: bf16 rounds each product's
  // inputs to 2^-9 of themselves, and the errors of two layers' dozen products
  // stay within a few percent of a cross-entropy near log(tags).
  CHECK(std::abs(first[1] - first[0]) <= 0.05 * first[0]);
}
