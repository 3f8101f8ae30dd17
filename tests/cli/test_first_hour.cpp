// What a Transformers user meets in a first hour with the runner: a local
// tokenizer folder named without ./ is that folder, and predict on a run reads
// a file laid out as the run's own splits (its data.columns).
#include "catch.h"

#include "shared.h"

#include <filesystem>
#include <fstream>

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
