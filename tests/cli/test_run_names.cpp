// A run is addressable by its name (runs/NAME or NAME means its newest run, a
// sweep point's name too), `runner run` prints the run directory alone on
// stdout, predict names the file and line of a line that is not JSON and can
// print probabilities, and an exported folder's tokenizer files are the user's
// to edit.
#include "catch.h"

#include "report/report_fixtures.h"
#include "shared.h"

#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace runner;
using test::run_command;
using test::runner_exe;
namespace fs = std::filesystem;

namespace {

// Standard output alone (run_command adds 2>&1 after the command line, so the
// redirection must be inside a group to win).
test::CommandResult stdout_of(const std::string& command_line) {
  return run_command("{ " + command_line + " 2>/dev/null; }");
}

// Trains the smoke recipe for 2 steps under <dir>/runs/named; stdout alone is returned.
std::string train_named(const std::string& dir) {
  auto r = stdout_of("cd " + dir + " && " + runner_exe() + " run " + test::source_dir() +
                     "/recipes/smoke/mrpc_smoke.toml --set run.output_dir=runs --set run.name=named "
                     "--set train.max_steps=2 --set run.loggers=jsonl");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("a run prints its directory on stdout and is found again by its name", "[cli]") {
  std::string dir = test::tmp_dir("run-names");
  std::string first = train_named(dir), second = train_named(dir);
  // Only the run directory reaches stdout, so DIR=$(runner run ...) works.
  REQUIRE(std::count(second.begin(), second.end(), '\n') == 1);
  std::string newest = second.substr(0, second.size() - 1);
  CHECK(fs::is_regular_file(newest + "/env.json"));
  CHECK(first != second);
  CHECK(fs::path(newest).parent_path() == fs::path(dir) / "runs" / "named");
  const std::string taken = "its newest run, runs/named/" + fs::path(newest).filename().string();

  for (const std::string& name : {std::string("runs/named"), std::string("named"), std::string("runs/named/")}) {
    auto report = run_command("cd " + dir + " && " + runner_exe() + " report " + name + " --out r.html");
    INFO(name << "\n" << report.out);
    CHECK(report.exit_code == 0);
    CHECK_THAT(report.out, Catch::Contains(taken));
  }
  auto exported = run_command("cd " + dir + " && " + runner_exe() + " export named --to out");
  INFO(exported.out);
  REQUIRE(exported.exit_code == 0);
  // The tokenizer comes from a read-only model store; the exported copy is the user's.
  struct stat st {};
  REQUIRE(stat((dir + "/out/vocab.txt").c_str(), &st) == 0);
  CHECK((st.st_mode & S_IWUSR) != 0);
  auto compare = run_command("cd " + dir + " && " + runner_exe() + " compare runs/named named");
  INFO(compare.out);
  CHECK(compare.exit_code == 0);
  auto resume = run_command("cd " + dir + " && " + runner_exe() + " resume named");
  INFO(resume.out);
  CHECK(resume.out.find("not a run directory") == std::string::npos);
  CHECK_THAT(resume.out, Catch::Contains(taken));

  // predict --model takes the run's final/ model; --probabilities adds the softmax.
  std::ofstream(dir + "/pairs.jsonl") << "{\"text_a\": \"a cat\", \"text_b\": \"a dog\"}\n";
  auto predicted = stdout_of("cd " + dir + " && " + runner_exe() +
                             " predict --model named --probabilities --input pairs.jsonl");
  INFO(predicted.out);
  REQUIRE(predicted.exit_code == 0);
  nlohmann::json line = nlohmann::json::parse(predicted.out);
  REQUIRE(line["probabilities"].size() == 2);
  CHECK(line["probabilities"][0].get<double>() + line["probabilities"][1].get<double>() == Approx(1.0));
  CHECK((line["probabilities"][1] > line["probabilities"][0]) == (line["label"] == 1));
}

TEST_CASE("predict names the file and line of a line that is not JSON, with the fix", "[cli]") {
  std::string dir = test::tmp_dir("predict-bad-line");
  std::ofstream(dir + "/pairs.jsonl") << "{\"text_a\": \"fine\"}\nThe cat sat.\tThe dog sat.\n";
  std::string shared = test::shared_dir();
  auto r = run_command(runner_exe() + " predict --model " + shared + "/golden/tiny_bert --tokenizer " + shared +
                       "/models/bert-base-uncased --input " + dir + "/pairs.jsonl");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains(dir + "/pairs.jsonl:2: error: expected a JSON object, found a line that is not JSON"));
  CHECK_THAT(r.out, Catch::Contains("hint: each line must be a JSON object"));
  CHECK(r.out.find("syntax error") == std::string::npos);  // nlohmann's words stay out
}

TEST_CASE("print-config shows the preset's real sizes and run.output_dir absolute", "[cli]") {
  std::string dir = test::tmp_dir("print-config-output-dir");
  auto r = stdout_of("cd " + dir + " && " + runner_exe() + " print-config --format json " + test::source_dir() +
                     "/recipes/smoke/mrpc_smoke.toml --set run.output_dir=elsewhere/../runs");
  REQUIRE(r.exit_code == 0);
  nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["run"]["output_dir"] == fs::path(dir + "/runs").lexically_normal().string());
  // The smoke recipe's preset is bert-tiny: 2 layers, 128 hidden, 2 heads (not 0 = keep).
  CHECK(j["model"]["num_hidden_layers"] == 2);
  CHECK(j["model"]["hidden_size"] == 128);
  CHECK(j["model"]["num_attention_heads"] == 2);
  CHECK(j["model"]["intermediate_size"] == 512);
  CHECK(j["model"]["hidden_act"] == "gelu");
}

TEST_CASE("runs under another run.output_dir are found by what ls prints, and reports go into the run", "[cli]") {
  // With run.output_dir elsewhere, ls, report NAME and compare find the runs
  // there by ls's names, and report writes into the run, not ./report.html.
  std::string dir = test::tmp_dir("run-names-elsewhere");
  fs::create_directories(dir + "/work");
  std::string recipe = test::read_text(test::source_dir() + "/recipes/smoke/mrpc_smoke.toml");
  recipe.replace(recipe.find("name = \"mrpc_smoke\""), 19, "name = \"far\"\noutput_dir = \"" + dir + "/elsewhere\"");
  std::ofstream(dir + "/far.toml") << recipe;
  auto trained = stdout_of("cd " + dir + " && " + runner_exe() +
                           " far.toml --set train.max_steps=2 --set run.loggers=jsonl");
  INFO(trained.out);
  REQUIRE(trained.exit_code == 0);
  std::string run = trained.out.substr(0, trained.out.size() - 1);
  std::string id = fs::path(run).filename().string();
  const std::string in_work = "cd " + dir + "/work && ";

  // ls: by the recipe, or by RUNNER_RUNS; its NAME and the end of its DIR name the run.
  for (const std::string& ls : {runner_exe() + " ls ../far.toml", "RUNNER_RUNS=" + dir + "/elsewhere " +
                                                                       runner_exe() + " ls"}) {
    auto listed = run_command(in_work + ls);
    INFO(ls << "\n" << listed.out);
    CHECK(listed.exit_code == 0);
    CHECK(listed.out.find("far ") != std::string::npos);
    CHECK(listed.out.find(id) != std::string::npos);
  }
  const std::string env = "RUNNER_RUNS=" + dir + "/elsewhere ";
  auto compared = run_command(in_work + env + runner_exe() + " compare far " + id);
  INFO(compared.out);
  CHECK(compared.exit_code == 0);
  CHECK(compared.out.find("expected a readable file") == std::string::npos);

  // report: into the run directory by default, found by the recipe or by the name.
  for (const std::string& command : {runner_exe() + " report ../far.toml", env + runner_exe() + " report far"}) {
    fs::remove(run + "/report.html");
    auto report = run_command(in_work + command);
    INFO(command << "\n" << report.out);
    CHECK(report.exit_code == 0);
    CHECK(fs::is_regular_file(run + "/report.html"));
    CHECK(!fs::exists(dir + "/work/report.html"));
  }
}

TEST_CASE("--runs DIR finds and lists runs kept outside ./runs", "[cli]") {
  // With run.output_dir elsewhere, ls and a run's name looked only under ./runs.
  std::string dir = test::tmp_dir("runs-flag");
  train_named(dir);
  std::string elsewhere = test::tmp_dir("runs-flag-cwd");
  auto ls = stdout_of("cd " + elsewhere + " && " + runner_exe() + " ls --runs " + dir + "/runs --json");
  INFO(ls.out);
  CHECK(ls.exit_code == 0);
  CHECK_THAT(ls.out, Catch::Contains("\"named\""));
  auto report = run_command("cd " + elsewhere + " && " + runner_exe() + " report named --runs " + dir +
                            "/runs --out r.html");
  INFO(report.out);
  CHECK(report.exit_code == 0);
  CHECK(fs::is_regular_file(elsewhere + "/r.html"));
  auto without = run_command("cd " + elsewhere + " && " + runner_exe() + " report named --out r2.html");
  CHECK(without.exit_code == 2);
}

TEST_CASE("a sweep's runs are named as ls prints them: point name or run folder", "[cli]") {
  // A sweep keeps its points' runs one level deeper: runs/<sweep>/<point>/<time>-<id>.
  std::string dir = test::tmp_dir("sweep-run-names");
  test::FakeRun first, second;
  first.name = "lr-3e-05_seed-1-37945fe7";
  second.name = "lr-0.0001_seed-1-7b0cbd02";
  second.accuracies = {0.80, 0.78};
  test::make_fake_run(dir + "/runs/mysweep", "20261127T184455Z-e7c7a2", first);
  test::make_fake_run(dir + "/runs/mysweep", "20261127T184460Z-0a0b0c", second);
  test::make_fake_run(dir + "/runs/mysweep", "20261127T190000Z-ffffff", second);

  auto compared = run_command("cd " + dir + " && " + runner_exe() + " compare " + first.name + " " + second.name);
  INFO(compared.out);
  CHECK(compared.exit_code == 0);
  CHECK_THAT(compared.out, Catch::Contains(first.name + ": its newest run, runs/mysweep/" + first.name +
                                           "/20261127T184455Z-e7c7a2"));
  // Of a point's two runs, the newer is taken.
  CHECK_THAT(compared.out, Catch::Contains(second.name + ": its newest run, runs/mysweep/" + second.name +
                                           "/20261127T190000Z-ffffff"));
  auto by_folder = run_command("cd " + dir + " && " + runner_exe() + " report 20261127T184455Z-e7c7a2 --out r.html");
  INFO(by_folder.out);
  CHECK(by_folder.exit_code == 0);
  CHECK(fs::is_regular_file(dir + "/r.html"));

  // A name that is no run says where it looked and how to look elsewhere.
  auto unknown = run_command("cd " + dir + " && " + runner_exe() + " compare nosuch " + second.name);
  INFO(unknown.out);
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.out, Catch::Contains("nosuch: error: names no run: no run name or run folder 'nosuch' under runs"));
  CHECK_THAT(unknown.out, Catch::Contains("--runs DIR"));
  CHECK_THAT(unknown.out, !Catch::Contains("readable file"));
}
