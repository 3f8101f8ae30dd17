// The conventions a shell user and a torchrun or Accelerate
// user bring: `-` and /dev/stdin read standard input, other tools' command
// names lead to the runner's, and torchrun's and Accelerate's flag spellings
// are taken as the runner's own.
#include "catch.h"

#include "shared.h"

#include <filesystem>
#include <string>

using runner::test::run_command;
using runner::test::runner_exe;
using runner::test::smoke_recipe;
using runner::test::source_dir;

TEST_CASE("validate and print-config read a recipe from standard input, TOML or YAML by its content", "[cli]") {
  auto dash = run_command(runner_exe() + " validate - < " + smoke_recipe());
  INFO(dash.out);
  CHECK(dash.exit_code == 0);
  CHECK_THAT(dash.out, Catch::Contains("<stdin>: valid"));
  auto dev = run_command("cat " + smoke_recipe() + " | " + runner_exe() + " validate /dev/stdin");
  INFO(dev.out);
  CHECK(dev.exit_code == 0);
  CHECK_THAT(dev.out, Catch::Contains("/dev/stdin: valid") && !Catch::Contains("filesystem error"));
  auto yaml = run_command("cat " + source_dir() + "/recipes/sst2_bert_mini.yaml | " + runner_exe() +
                          " print-config - --set train.epochs=2");
  INFO(yaml.out);
  CHECK(yaml.exit_code == 0);
  CHECK_THAT(yaml.out, Catch::Contains("name = \"sst2_bert_mini\"") && Catch::Contains("epochs = 2.0"));
  // Errors name standard input with the line and column, as a file's would.
  auto bad = run_command("printf '[train]\\nepohcs = 2\\n' | " + runner_exe() + " validate -");
  INFO(bad.out);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.out, Catch::Contains("<stdin>:2:1") && Catch::Contains("did you mean \"epochs\"?"));
}

TEST_CASE("a command that keeps its recipe refuses standard input with exit 2 and the fix", "[cli]") {
  std::string dir = runner::test::tmp_dir("stdin-run");
  auto r = run_command("cd " + dir + " && cat " + smoke_recipe() + " | " + runner_exe() + " run /dev/stdin");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("not run") && Catch::Contains("write the recipe to a .toml or .yaml file") &&
                        !Catch::Contains("filesystem error"));
  CHECK_FALSE(std::filesystem::exists(dir + "/runs"));
}

TEST_CASE("other tools' command names lead to the runner's", "[cli]") {
  auto train = run_command(runner_exe() + " train " + smoke_recipe());
  INFO(train.out);
  CHECK(train.exit_code == 2);
  CHECK_THAT(train.out, Catch::Contains("unknown command \"train\"") && Catch::Contains("did you mean \"run\"?"));
}

TEST_CASE("launch takes torchrun's and Accelerate's spellings of its flags", "[cli]") {
  // A recipe that does not exist: the flags are parsed, then the recipe is refused.
  for (const char* flags : {"--nproc_per_node 2 --nnodes 1 --node_rank 0 --master_port 29501",
                            "--num_processes 2 --num_machines 1 --machine_rank 0 --main_process_port 29501"}) {
    auto r = run_command(runner_exe() + " launch missing.toml " + flags);
    INFO(flags << "\n" << r.out);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.out, !Catch::Contains("unknown flag") && Catch::Contains("missing.toml"));
  }
  auto unknown = run_command(runner_exe() + " launch missing.toml --nproc_per_nod 2");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.out, Catch::Contains("unknown flag --nproc_per_nod"));
}

TEST_CASE("--input - reads standard input", "[cli]") {
  auto r = run_command("echo '{\"text_a\": \"hello world\"}' | " + runner_exe() + " tokenize --input - --tokenizer " +
                       runner::test::shared_dir() + "/models/bert-base-uncased");
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("\"input_ids\":[101,7592,2088,102]"));
}
