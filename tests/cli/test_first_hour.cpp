// What a Transformers user meets in a first hour with the runner: a local
// tokenizer folder named without ./ is that folder, and predict on a run reads
// a file laid out as the run's own splits (its data.columns).
#include "catch.h"

#include "run_files.h"
#include "shared.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using runner::test::CommandResult;
using runner::test::run_command;
using runner::test::runner_exe;

TEST_CASE("a tokenizer.path that is a folder in the working folder is read from there, before the model roots",
          "[cli]") {
  const std::string dir = runner::test::tmp_dir("local_tokenizer_folder");
  fs::create_directories(dir + "/tok/bert");
  fs::copy_file(runner::test::shared_dir() + "/models/bert-base-uncased/vocab.txt", dir + "/tok/bert/vocab.txt");
  CommandResult r = run_command("cd " + dir + " && RUNNER_OFFLINE=1 " + runner_exe() + " print-config " +
                                runner::test::smoke_recipe() + " --set tokenizer.path=tok/bert");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains(fs::canonical(dir).string() + "/tok/bert"));
}

TEST_CASE("predict --model RUN reads a CSV with the run's own data.columns; the JSONL hint names --columns", "[cli]") {
  const std::string dir = runner::test::tmp_dir("predict_run_columns");
  fs::create_directories(dir + "/data");
  std::ofstream(dir + "/data/train.csv") << "review,stars\na good film,1\na bad film,0\nfine,1\nawful,0\n";
  fs::copy_file(dir + "/data/train.csv", dir + "/data/dev.csv");
  std::ofstream(dir + "/r.toml") << "[run]\nname = \"cols\"\noutput_dir = \"" << dir << "/runs\"\n"
                                 << "[data]\ndataset = \"csv\"\ndir = \"" << dir << "/data\"\nmax_length = 16\n"
                                 << "cache_dir = \"" << dir << "/cache\"\n"
                                 << "columns = { text_a = \"review\", label = \"stars\" }\n"
                                 << "[model]\npreset = \"bert-tiny\"\n[train]\nmax_steps = 1\n";
  CommandResult trained = run_command(runner_exe() + " run " + dir + "/r.toml");
  INFO(trained.out);
  REQUIRE(trained.exit_code == 0);
  std::ofstream(dir + "/new.csv") << "review\nwhat a film\nnot for me\n";
  CommandResult predicted = run_command("cd " + dir + " && " + runner_exe() + " predict --model runs/cols --input new.csv");
  INFO(predicted.out);
  REQUIRE(predicted.exit_code == 0);
  CHECK_THAT(predicted.out, Catch::Contains("\"text_a\":\"what a film\"") && Catch::Contains("\"logits\""));
  // A file that lacks the run's column is refused with the flag that fixes it.
  std::ofstream(dir + "/other.csv") << "sentence\nwhat a film\n";
  CommandResult other = run_command("cd " + dir + " && " + runner_exe() + " predict --model runs/cols --input other.csv");
  INFO(other.out);
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.out, Catch::Contains("no column \"review\"") && Catch::Contains("--columns text_a="));
}

// Each feature the runner lacks is named as such where a user asks for it, with
// the README section that says how to get there, never as a bare "unknown".
TEST_CASE("what the runner does not do is said plainly: the Hub, ONNX, W&B; NER tags point to conll; PEFT's keys lead to [lora]", "[cli]") {
  const std::string smoke = runner::test::smoke_recipe();
  struct Ask {
    std::string command, says;
  };
  const std::vector<Ask> asks = {
      {" validate " + smoke + " --set train.push_to_hub=true", "pushing to the Hugging Face Hub is not supported"},
      {" validate " + smoke + " --set run.report_to=wandb", "Weights & Biases is not supported"},
      {" push runs/x", "huggingface-cli upload"},
      {" export runs/x --format onnx --to out", "ONNX export is not supported"},
  };
  for (const Ask& a : asks) {
    INFO(a.command);
    CommandResult r = run_command(runner_exe() + a.command);
    INFO(r.out);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.out, Catch::Contains(a.says) && Catch::Contains("What it does not do"));
  }
  // A [peft] section in a file, and an NER file's tag lists as labels, pointed to the token datasets.
  const std::string dir = runner::test::tmp_dir("unsupported_in_files");
  fs::create_directories(dir + "/data");
  std::ofstream(dir + "/data/train.jsonl") << "{\"text_a\": \"EU rejects German call\", \"label\": [\"B-ORG\", \"O\", \"B-MISC\", \"O\"]}\n";
  fs::copy_file(dir + "/data/train.jsonl", dir + "/data/dev.jsonl");
  std::ofstream(dir + "/ner.toml") << "[data]\ndataset = \"jsonl\"\ndir = \"" << dir << "/data\"\n"
                                   << "labels = { O = 0, \"B-ORG\" = 1 }\n[model]\npreset = \"bert-tiny\"\n";
  CommandResult ner = run_command(runner_exe() + " validate " + dir + "/ner.toml");
  INFO(ner.out);
  CHECK(ner.exit_code == 2);
  CHECK_THAT(ner.out, Catch::Contains("these look like NER tags") && Catch::Contains("data.dataset = \"conll\""));
  CHECK(ner.out.find("What it does not do") == std::string::npos);
  // PEFT's spellings are refused with the [lora] key that says the same.
  std::ofstream(dir + "/peft.toml") << "[peft]\nr = 8\n";
  CommandResult peft = run_command(runner_exe() + " validate " + dir + "/peft.toml");
  INFO(peft.out);
  CHECK(peft.exit_code == 2);
  CHECK_THAT(peft.out, Catch::Contains("peft.toml:1:") && Catch::Contains("the [lora] section here"));
  CommandResult set = run_command(runner_exe() + " validate " + smoke + " --set peft.r=8");
  INFO(set.out);
  CHECK(set.exit_code == 2);
  CHECK_THAT(set.out, Catch::Contains("the [lora] section here"));
  std::ofstream(dir + "/lora_r.toml") << "[train]\nlora_r = 16\n";
  CommandResult lora_r = run_command(runner_exe() + " validate " + dir + "/lora_r.toml");
  INFO(lora_r.out);
  CHECK(lora_r.exit_code == 2);
  CHECK_THAT(lora_r.out, Catch::Contains("\"lora_r\" (PEFT) is lora.r here") && Catch::Contains("r = 16"));
}

TEST_CASE("smaller walls: a --set list in brackets gets the bare form, a missing plugin is said once", "[cli]") {
  CommandResult list = run_command(runner_exe() + " validate " + runner::test::smoke_recipe() +
                                   " --set 'run.loggers=[console,jsonl]'");
  INFO(list.out);
  CHECK(list.exit_code == 2);
  CHECK_THAT(list.out, Catch::Contains("--set run.loggers=console,jsonl"));
  const std::string dir = runner::test::tmp_dir("plugin_said_once");
  std::ofstream(dir + "/r.toml") << "plugins = [\"" << dir << "/libnone.so\"]\n";
  CommandResult plugin = run_command(runner_exe() + " validate " + dir + "/r.toml");
  INFO(plugin.out);
  CHECK(plugin.exit_code == 2);
  const std::string said = "libnone.so does not exist";
  const size_t first = plugin.out.find(said);
  REQUIRE(first != std::string::npos);
  CHECK(plugin.out.find(said, first + 1) == std::string::npos);
}

// Words given one by one to a byte-level BPE tokenizer need a space before each, as
// run_ner.py gives RoBERTa's: without data.add_prefix_space the run is refused with that fix.
TEST_CASE("token classification with a byte-level BPE tokenizer asks for add_prefix_space", "[cli]") {
  const std::string dir = runner::test::tmp_dir("token_prefix_space");
  const std::string run = runner_exe() + " run " + runner::test::source_dir() + "/recipes/smoke/ner_smoke.toml" +
                          " --set run.output_dir=" + dir + "/runs --set tokenizer.path=" + runner::test::source_dir() +
                          "/tests/tokenizer/golden/roberta_bpe.tokenizer.json --set train.max_steps=1";
  CommandResult refused = run_command(run);
  INFO(refused.out);
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.out, Catch::Contains("data.add_prefix_space") && Catch::Contains("as run_ner.py does"));
  CommandResult trained = run_command(run + " --set data.add_prefix_space=true");
  INFO(trained.out);
  REQUIRE(trained.exit_code == 0);
  // A tokenizer named by its file goes into final/ under the name Transformers reads.
  const std::string final_dir = runner::test::only_run_dir(dir, "ner_smoke") + "/final";
  CHECK(runner::test::read_text(final_dir + "/tokenizer.json") ==
        runner::test::read_text(runner::test::source_dir() + "/tests/tokenizer/golden/roberta_bpe.tokenizer.json"));
}

// RoBERTa's token type table has one row; a BERT tokenizer gives a pair's second
// text type 1: refused with the fix before the first step, not LibTorch's index error.
TEST_CASE("a tokenizer whose type ids the model's token type table lacks is refused before the first step", "[cli]") {
  const std::string dir = runner::test::tmp_dir("type_ids_past_table");
  CommandResult r = run_command(runner_exe() + " run " + runner::test::smoke_recipe() + " --set run.output_dir=" + dir +
                                " --set model.type=roberta --set model.preset=roberta-base --set model.num_hidden_layers=1"
                                " --set model.hidden_size=32 --set model.num_attention_heads=2"
                                " --set model.intermediate_size=64 --set data.max_train_examples=16"
                                " --set data.max_eval_examples=16 --set train.max_steps=1");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("token type id 1") && Catch::Contains("type_vocab_size"));
  CHECK(r.out.find("index out of range") == std::string::npos);
}
