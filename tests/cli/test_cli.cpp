// The command line: one table of flags and commands, help from it, clear errors.
#include "catch.h"

#include "shared.h"

#include "cli/args.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace runner;
using test::run_command;
using test::runner_exe;

TEST_CASE("no flag and no command is defined twice; commands use only table flags", "[cli]") {
  std::set<std::string> flags, commands, used;
  for (const auto& f : flag_table()) {
    INFO(f.name);
    CHECK(flags.insert(f.name).second);
    CHECK(f.name.rfind("--", 0) == 0);
    CHECK_FALSE(f.help.empty());
  }
  for (const auto& c : command_table()) {
    INFO(c.name);
    CHECK(commands.insert(c.name).second);
    CHECK(c.handler);
    std::set<std::string> own;
    for (const auto& f : c.flags) {
      CHECK(find_flag(f) != nullptr);
      CHECK(own.insert(f).second);
      used.insert(f);
    }
  }
  CHECK(used == flags);  // no flag is declared and then left unused
}

TEST_CASE("every command has --help generated from the table", "[cli]") {
  for (const auto& c : command_table()) {
    auto r = run_command(runner_exe() + " " + c.name + " --help");
    INFO(c.name << "\n" << r.out);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("usage: runner " + c.name) == 0);
    for (const auto& f : c.flags) CHECK(r.out.find(f) != std::string::npos);
  }
  auto top = run_command(runner_exe() + " --help");
  CHECK(top.exit_code == 0);
  for (const auto& c : command_table()) CHECK(top.out.find("  " + c.name + " ") != std::string::npos);
}

TEST_CASE("bad flags and commands exit 2 with a suggestion", "[cli]") {
  auto flag = run_command(runner_exe() + " print-config recipes/x.toml --fromat json");
  CHECK(flag.exit_code == 2);
  CHECK_THAT(flag.out, Catch::Contains("unknown flag --fromat") && Catch::Contains("did you mean \"--format\"?"));
  auto cmd = run_command(runner_exe() + " validat recipes/x.toml");
  CHECK(cmd.exit_code == 2);
  CHECK_THAT(cmd.out, Catch::Contains("unknown command \"validat\"") && Catch::Contains("did you mean \"validate\"?"));
  auto missing = run_command(runner_exe() + " validate");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.out, Catch::Contains("needs RECIPE"));
  auto value = run_command(runner_exe() + " print-config --format");
  CHECK(value.exit_code == 2);
  CHECK_THAT(value.out, Catch::Contains("flag --format needs a value"));
  auto none = run_command(runner_exe());
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.out, Catch::Contains("usage: runner COMMAND"));
}

TEST_CASE("--version names the runner, its commit and LibTorch", "[cli]") {
  auto r = run_command(runner_exe() + " --version");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("runner 0.") && Catch::Contains("(git "));
  // Whichever LibTorch the build found (1.13 on Debian 12, 2.6 on 13, a pip wheel's 2.x).
  CHECK(std::regex_search(r.out, std::regex("\nLibTorch [0-9]+\\.[0-9]+\\.[0-9]+")));
}

TEST_CASE("describe shows options from their single declaration", "[cli]") {
  auto adamw = run_command(runner_exe() + " describe optimizer adamw");
  CHECK(adamw.exit_code == 0);
  CHECK_THAT(adamw.out, Catch::Contains("betas") && Catch::Contains("default [0.9,0.999]"));
  auto train = run_command(runner_exe() + " describe train");
  CHECK_THAT(train.out, Catch::Contains("grad_accum") && Catch::Contains("fp32|bf16|fp16"));
  auto kinds = run_command(runner_exe() + " describe scheduler");
  CHECK_THAT(kinds.out, Catch::Contains("cosine_with_restarts"));
  auto bad = run_command(runner_exe() + " describe optimizer adamx");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.out, Catch::Contains("did you mean \"adam"));
}

TEST_CASE("plugins lists every component kind", "[cli]") {
  auto r = run_command(runner_exe() + " plugins");
  CHECK(r.exit_code == 0);
  for (const char* k : {"dataset:", "tokenizer:", "model:", "optimizer:", "scheduler:", "metric:", "logger:"})
    CHECK(r.out.find(k) != std::string::npos);
  CHECK_THAT(r.out, Catch::Contains("glue/mrpc") && Catch::Contains("wordpiece") && Catch::Contains("bert"));
}

TEST_CASE("predict on tiny_bert reproduces the golden logits", "[cli]") {
  // golden/model_parity/batch.json is MRPC dev rows 0-3; expected.json holds their
  // logits from Hugging Face (fp32, one thread).
  std::string shared = test::shared_dir();
  std::string dir = test::tmp_dir("predict_cli");
  std::ifstream dev(shared + "/golden/tokenization/mrpc_dev.jsonl");
  std::ofstream input(dir + "/pairs.jsonl");
  std::string line;
  for (int i = 0; i < 4 && std::getline(dev, line); ++i) {
    auto j = nlohmann::json::parse(line);
    input << nlohmann::json{{"text_a", j["text_a"]}, {"text_b", j["text_b"]}}.dump() << "\n";
  }
  input.close();
  auto r = run_command(runner_exe() + " predict --model " + shared + "/golden/tiny_bert --tokenizer " +
                       shared + "/models/bert-base-uncased --batch-size 3 --input " + dir + "/pairs.jsonl 2>/dev/null");
  REQUIRE(r.exit_code == 0);
  nlohmann::json expected;
  std::ifstream(shared + "/golden/model_parity/expected.json") >> expected;
  std::istringstream out(r.out);
  for (int i = 0; i < 4; ++i) {
    REQUIRE(std::getline(out, line));
    auto got = nlohmann::json::parse(line);
    for (int k = 0; k < 2; ++k)
      CHECK(got["logits"][k].get<double>() == Approx(expected["logits"][i][k].get<double>()).margin(1e-5));
    int argmax = expected["logits"][i][1].get<double>() > expected["logits"][i][0].get<double>();
    CHECK(got["label"] == argmax);
  }
}

TEST_CASE("tokenize through the CLI matches Hugging Face on MRPC dev", "[cli]") {
  std::string shared = test::shared_dir();
  auto r = run_command("head -50 " + shared + "/golden/tokenization/mrpc_dev.jsonl | " + runner_exe() +
                       " tokenize --max-length 128");
  REQUIRE(r.exit_code == 0);
  std::ifstream golden(shared + "/golden/tokenization/mrpc_dev.jsonl");
  std::istringstream out(r.out);
  std::string want, got;
  int lines = 0;
  while (lines < 50 && std::getline(golden, want) && std::getline(out, got)) {
    auto w = nlohmann::json::parse(want), g = nlohmann::json::parse(got);
    CHECK(g["input_ids"] == w["input_ids"]);
    CHECK(g["token_type_ids"] == w["token_type_ids"]);
    ++lines;
  }
  CHECK(lines == 50);
}

TEST_CASE("tokenize --attention-mask adds a 1 per token, as transformers does without padding", "[cli]") {
  std::string shared = test::shared_dir();
  std::string head = "head -20 " + shared + "/golden/tokenization/mrpc_dev.jsonl | ";
  auto with = run_command(head + runner_exe() + " tokenize --max-length 32 --attention-mask");
  INFO(with.out);
  REQUIRE(with.exit_code == 0);
  std::istringstream out(with.out);
  std::string line;
  int lines = 0;
  for (; std::getline(out, line); ++lines) {
    auto g = nlohmann::json::parse(line);
    REQUIRE(g.contains("attention_mask"));
    CHECK(g["attention_mask"] == std::vector<int>(g["input_ids"].size(), 1));
  }
  CHECK(lines == 20);
  auto without = run_command(head + runner_exe() + " tokenize --max-length 32");
  REQUIRE(without.exit_code == 0);
  CHECK(without.out.find("attention_mask") == std::string::npos);  // only when asked
}
