// Scriptable and inspectable. --json on validate, describe,
// compare and sweep --status prints one JSON document on stdout; `runner env`
// says what the build and machine offer; the completion scripts come from the
// argument table, so every command and flag completes.
#include "catch.h"

#include "shared.h"

#include "../report/report_fixtures.h"
#include "cli/args.h"
#include "recipe/overrides.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>

using namespace runner;
using test::run_command;
using test::runner_exe;

namespace {

using runner::test::smoke_recipe;

// stdout alone, parsed: a JSON document must be all that a script reads there.
nlohmann::json json_of(const std::string& args, int expected_exit) {
  // run_command adds 2>&1 after the line: the redirection inside the group wins.
  auto r = run_command("{ " + runner_exe() + " " + args + " 2>/dev/null; }");
  INFO(args << "\n" << r.out);
  CHECK(r.exit_code == expected_exit);
  nlohmann::json j;
  REQUIRE_NOTHROW(j = nlohmann::json::parse(r.out));
  return j;
}

// What bash completes after `words`, the last of which is the word being completed.
std::string bash_completes(const std::vector<std::string>& words) {
  std::string dir = test::tmp_dir("completion");
  REQUIRE(run_command(runner_exe() + " completion bash > " + dir + "/runner.bash").exit_code == 0);
  std::ofstream driver(dir + "/drive.sh");
  driver << "source " << dir << "/runner.bash\nCOMP_WORDS=(";
  for (const auto& w : words) driver << " \"" << w << "\"";
  driver << ")\nCOMP_CWORD=" << words.size() - 1 << "\n_runner\nprintf '%s ' \"${COMPREPLY[@]}\"\n";
  driver.close();
  auto r = run_command("cd " + dir + " && bash drive.sh");
  INFO(r.out);
  CHECK(r.exit_code == 0);
  return " " + r.out;
}

}  // namespace

TEST_CASE("validate --json: valid or not, every diagnostic with its place and hint", "[cli]") {
  nlohmann::json ok = json_of("validate --json " + smoke_recipe(), 0);
  CHECK(ok["valid"] == true);
  CHECK(ok["errors"].empty());
  CHECK(ok["recipe"] == smoke_recipe());

  std::string dir = test::tmp_dir("validate-json");
  std::ofstream(dir + "/bad.toml") << "extends = \"" << smoke_recipe() << "\"\n[optimizer]\nlrr = 1e-3\n";
  nlohmann::json bad = json_of("validate --json " + dir + "/bad.toml --set train.epochs=-1", 2);
  CHECK(bad["valid"] == false);
  REQUIRE(bad["errors"].size() == 2);
  CHECK(bad["errors"][0]["file"] == dir + "/bad.toml");
  CHECK(bad["errors"][0]["line"] == 3);
  CHECK(bad["errors"][0]["column"] == 7);  // the value's column
  CHECK(bad["errors"][0]["key"] == "optimizer.lrr");
  CHECK(bad["errors"][0]["hint"] == "did you mean \"lr\"?");
  CHECK(bad["errors"][1]["origin"] == "--set train.epochs=-1");
  CHECK(bad["errors"][1]["key"] == "train.epochs");
}

TEST_CASE("describe --json lists a section's and a component's options as declared", "[cli]") {
  nlohmann::json train = json_of("describe train --json", 0);
  CHECK(train["section"] == "train");
  bool found = false;
  for (const auto& o : train["options"])
    if (o["name"] == "precision") {
      found = true;
      CHECK(o["default"] == "fp32");
      CHECK(o["choices"] == nlohmann::json({"fp32", "bf16", "fp16"}));
    }
  CHECK(found);
  nlohmann::json adamw = json_of("describe optimizer adamw --json", 0);
  CHECK(adamw["name"] == "adamw");
  CHECK(adamw["section"] == "optimizer");
  CHECK(adamw["options"].dump().find("\"betas\"") != std::string::npos);
  CHECK(adamw["section_options"].dump().find("\"weight_decay\"") != std::string::npos);
  nlohmann::json kinds = json_of("describe scheduler --json", 0);
  CHECK(kinds["components"].dump().find("cosine_with_restarts") != std::string::npos);
}

TEST_CASE("compare --json carries the metrics, the differences and the checks", "[cli]") {
  std::string dir = test::tmp_dir("compare-json");
  test::FakeRun a, b;
  b.lr = 2e-3;
  b.accuracies = {0.8, 0.6};
  std::string ra = test::make_fake_run(dir, "a", a), rb = test::make_fake_run(dir, "b", b);
  nlohmann::json j = json_of("compare --json " + ra + " " + rb + " --metric eval.accuracy --abs-tol 0.05", 1);
  CHECK(j["a"]["path"] == ra);
  CHECK(j["result"] == "regression");
  REQUIRE(j["checks"].size() == 1);
  CHECK(j["checks"][0]["regressed"] == true);
  CHECK(j["checks"][0]["a"].get<double>() == Approx(0.70));
  CHECK(j["checks"][0]["b"].get<double>() == Approx(0.60));
  CHECK(j["recipe_differences"].dump().find("optimizer.lr") != std::string::npos);
  bool accuracy = false;
  for (const auto& row : j["final"]) accuracy |= row["metric"] == "eval.accuracy";
  CHECK(accuracy);
}

TEST_CASE("sweep --status --json is the sweep summary's JSON", "[cli]") {
  std::string dir = test::tmp_dir("sweep-status-json");
  std::ofstream(dir + "/s.toml") << "base = \"" << smoke_recipe() << "\"\nmetric = \"eval.f1\"\noutput_dir = \""
                                 << dir << "/runs\"\n[grid]\n\"optimizer.lr\" = [1e-3, 2e-3]\n";
  nlohmann::json j = json_of("sweep " + dir + "/s.toml --status --json", 0);
  CHECK(j["sweep"] == "s");
  CHECK(j["metric"] == "eval.f1");
  REQUIRE(j["points"].size() == 2);
  CHECK(j["points"][0]["overrides"].dump().find("optimizer.lr") != std::string::npos);
  auto alone = run_command(runner_exe() + " sweep " + dir + "/s.toml --json");
  CHECK(alone.exit_code == 2);
  CHECK_THAT(alone.out, Catch::Contains("--json goes with --status"));
}

TEST_CASE("runner env says what the build and machine offer, as text or JSON", "[cli]") {
  nlohmann::json env = json_of("env --json", 0);
  for (const char* key : {"runner", "libtorch", "cuda", "nccl", "cpu", "threads", "paths"}) CHECK(env.contains(key));
  CHECK(env["libtorch"]["build"].get<std::string>().find("PyTorch built with") != std::string::npos);
  CHECK(env["cpu"]["usable_cpus"].get<int>() >= 1);
  CHECK(env["threads"]["intra_op"].get<int>() >= 1);
  CHECK(env["paths"]["token_cache"].is_string());
  auto text = run_command(runner_exe() + " env");
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.out, Catch::Contains("libtorch:") && Catch::Contains("vector_flags:") &&
                           Catch::Contains("hf_hub_cache:"));
}

TEST_CASE("bash completion comes from the argument table", "[cli]") {
  std::string commands = bash_completes({"runner", "val"});
  CHECK_THAT(commands, Catch::Contains(" validate "));
  for (const auto& c : command_table()) {
    std::string flags = bash_completes({"runner", c.name, "--"});
    INFO(c.name);
    for (const auto& f : c.flags) CHECK_THAT(flags, Catch::Contains(" " + f + " "));
  }
  CHECK_THAT(bash_completes({"runner", "print-config", "x.toml", "--format", ""}), Catch::Contains(" yaml "));
  CHECK_THAT(bash_completes({"runner", "describe", "opt"}), Catch::Contains(" optimizer "));
  CHECK_THAT(bash_completes({"runner", "recipe.toml", "--re"}), Catch::Contains(" --resume "));
}

TEST_CASE("--set completes the recipe's keys, components' options included", "[cli]") {
  std::string train = bash_completes({"runner", "run", "r.toml", "--set", "train."});
  CHECK_THAT(train, Catch::Contains(" train.epochs= "));
  CHECK_THAT(train, !Catch::Contains(" run.seed= "));
  CHECK_THAT(bash_completes({"runner", "sweep", "s.toml", "--set", "model.d"}), Catch::Contains(" model.dim= "));
  std::string all = bash_completes({"runner", "validate", "r.toml", "--set", ""});
  const std::vector<std::string> keys = settable_keys(registry());
  for (const auto& key : keys) CHECK_THAT(all, Catch::Contains(" " + key + "= "));
  // bert's, distilbert's and sgd's own options; extends is read before any --set.
  for (const char* key : {"model.hidden_size", "model.dim", "optimizer.momentum", "optimizer.lr", "plugins"})
    CHECK(std::count(keys.begin(), keys.end(), key) == 1);
  CHECK(std::count(keys.begin(), keys.end(), "extends") == 0);
  auto zsh = run_command(runner_exe() + " completion zsh");
  CHECK_THAT(zsh.out, Catch::Contains("]:KEY=VALUE:_runner_keys'") && Catch::Contains(" train.epochs ") &&
                          Catch::Contains("compadd -S '=' -- plugins "));
}

TEST_CASE("zsh completion comes from the argument table", "[cli]") {
  auto r = run_command(runner_exe() + " completion zsh");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("#compdef runner"));
  for (const auto& c : command_table()) {
    CHECK_THAT(r.out, Catch::Contains("    " + c.name + ")"));
    for (const auto& f : c.flags) CHECK_THAT(r.out, Catch::Contains("'" + std::string(find_flag(f)->repeatable ? "*" : "") + f + "["));
  }
  CHECK_THAT(r.out, Catch::Contains("--format[Output format (default toml)]:toml|yaml|json:(toml yaml json)"));
  // When zsh is installed, the script must at least parse.
  if (run_command("command -v zsh").exit_code == 0) {
    std::string script = test::tmp_dir("zsh-completion") + "/_runner";
    std::ofstream(script) << r.out;
    CHECK(run_command("zsh -n " + script).exit_code == 0);
  }
  auto bad = run_command(runner_exe() + " completion tcsh");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.out, Catch::Contains("unknown shell \"tcsh\"") && Catch::Contains("runner completion fish"));
}

TEST_CASE("fish completion comes from the argument table", "[cli]") {
  auto r = run_command(runner_exe() + " completion fish");
  REQUIRE(r.exit_code == 0);
  for (const auto& c : command_table()) {
    INFO(c.name);
    CHECK_THAT(r.out, Catch::Contains("complete -c runner -n __fish_use_subcommand -a " + c.name + " -d "));
    for (const auto& f : c.flags)
      CHECK_THAT(r.out, Catch::Contains("-n '__fish_seen_subcommand_from " + c.name + "' -l " + f.substr(2) + " "));
  }
  CHECK_THAT(r.out, Catch::Contains("-l format -d 'Output format (default toml)' -x -a 'toml yaml json'"));
  CHECK_THAT(r.out, Catch::Contains("-l set -d ") && Catch::Contains("-x -a '(__runner_keys)'"));
  CHECK_THAT(r.out, Catch::Contains("'__fish_seen_subcommand_from resume' -a '(__runner_runs)'"));
  // When fish is installed, the script must at least parse.
  if (run_command("command -v fish").exit_code == 0) {
    std::string script = test::tmp_dir("fish-completion") + "/runner.fish";
    std::ofstream(script) << r.out;
    auto parsed = run_command("fish --no-execute " + script);
    INFO(parsed.out);
    CHECK(parsed.exit_code == 0);
  }
}

TEST_CASE("the commands that take a run complete the run names ls prints", "[cli]") {
  std::string dir = test::tmp_dir("completion-runs");
  test::FakeRun a, b, spaced;
  a.name = "mrpc_smoke";
  b.name = "lr-3e-05_seed-1-37945fe7";
  spaced.name = "has space";
  test::make_fake_run(dir + "/runs", "20261127T105122Z-b8f4bf", a);
  test::make_fake_run(dir + "/runs/mysweep", "20261127T184455Z-e7c7a2", b);
  test::make_fake_run(dir + "/runs", "20261127T105123Z-000000", spaced);
  auto names = run_command("cd " + dir + " && " + runner_exe() + " ls --names");
  INFO(names.out);
  CHECK(names.exit_code == 0);
  // Newest first, each once; a name no completion could offer whole is left out.
  CHECK(names.out == "lr-3e-05_seed-1-37945fe7\nmrpc_smoke\n");

  REQUIRE(run_command(runner_exe() + " completion bash > " + dir + "/runner.bash").exit_code == 0);
  for (const std::string& command : {"resume", "report", "compare", "evaluate", "export"}) {
    std::ofstream(dir + "/drive.sh") << "source " << dir << "/runner.bash\nCOMP_WORDS=(" << runner_exe() << " "
                                     << command << " mr)\nCOMP_CWORD=2\n_runner\nprintf '%s ' \"${COMPREPLY[@]}\"\n";
    auto r = run_command("cd " + dir + " && bash drive.sh");
    INFO(command << ": " << r.out);
    CHECK(" " + r.out == " mrpc_smoke ");
  }
}
