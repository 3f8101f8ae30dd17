// Recipes a hostile (or unlucky) user could write: each must be
// refused by `runner validate` with exit code 2, within a second, naming the
// file:line, the key and the problem, before anything is created.
#include "catch.h"

#include "shared.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using runner::test::run_command;

namespace {

struct Outcome {
  int exit_code;
  std::string out;
  double seconds;
};

// Writes `text` to a fresh folder as `name` and runs `runner ARGS FILE EXTRA` there.
Outcome run_on(const std::string& name, const std::string& text, const std::string& extra = "",
               const std::string& command = "validate", const std::string& env = "") {
  std::string dir = runner::test::tmp_dir("hostile_" + fs::path(name).stem().string());
  std::ofstream(dir + "/" + name) << text;
  auto start = std::chrono::steady_clock::now();
  auto r = run_command("cd " + dir + " && " + env + " " + runner::test::runner_exe() + " " + command + " " +
                       name + " " + extra);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {r.exit_code, r.out, secs};
}

void expect_refused(const Outcome& r, const std::string& location, const std::string& key,
                    const std::string& message) {
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(r.out.find(location) != std::string::npos);
  CHECK(r.out.find(key) != std::string::npos);
  CHECK(r.out.find(message) != std::string::npos);
  CHECK(r.out.find("nothing was run") != std::string::npos);
}

// Ten anchors, each a list of ten aliases of the one before: 10^10 values expanded.
std::string billion_laughs() {
  std::string y = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i <= 9; ++i) {
    std::string prev = "*a" + std::to_string(i - 1);
    y += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) y += (k ? ", " : "") + prev;
    y += "]\n";
  }
  return y + "run: {loggers: *a9}\n";
}

}  // namespace

TEST_CASE("a YAML alias bomb is refused at once, naming the alias", "[recipe][hostile]") {
  Outcome r = run_on("bomb.yaml", billion_laughs());
  // With its lists, a0 is 11 values and each a(k) is 1 + 10 x a(k-1): a3 is 11111, and
  // the tenth alias of it in a4's list (line 5) makes 111111, past 100000.
  expect_refused(r, "bomb.yaml:5:", "alias *a3", "more than 100000 values");
  CHECK(r.seconds < 3.0);
}

TEST_CASE("a YAML alias inside the value it names is refused", "[recipe][hostile]") {
  expect_refused(run_on("loop.yaml", "run:\n  loggers: &l [console, *l]\n"), "loop.yaml:2:", "alias *l",
                 "refers to a value that contains it");
}

TEST_CASE("a second YAML document is refused, not ignored", "[recipe][hostile]") {
  Outcome r = run_on("two.yaml", "run:\n  seed: 1\n---\nrun:\n  seed: -5\n");
  expect_refused(r, "two.yaml:3:", "", "a second YAML document starts here");
}

TEST_CASE("inf and nan are named as such and refused", "[recipe][hostile]") {
  expect_refused(run_on("lr_inf.toml", "[optimizer]\nlr = inf\n"), "lr_inf.toml:2:", "optimizer.lr",
                 "found inf (number)");
  expect_refused(run_on("lr_nan.toml", "[optimizer]\nlr = nan\n"), "lr_nan.toml:2:", "optimizer.lr",
                 "found nan (number)");
  expect_refused(run_on("wd.toml", "[optimizer]\nweight_decay = -inf\n"), "wd.toml:2:",
                 "optimizer.weight_decay", "found -inf (number)");
  expect_refused(run_on("eps.toml", "[train]\nmax_grad_norm = inf\n"), "eps.toml:2:", "train.max_grad_norm",
                 "found inf (number)");
  expect_refused(run_on("nan.yaml", "optimizer:\n  lr: .nan\n"), "nan.yaml:2:", "optimizer.lr",
                 "found nan (number)");
  expect_refused(run_on("big.yaml", "train:\n  epochs: 1e999\n"), "big.yaml:2:", "train.epochs",
                 "found 1e999 (= inf) (number)");
  expect_refused(run_on("betas.toml", "[optimizer]\nbetas = [0.9, nan]\n"), "betas.toml:2:",
                 "optimizer.betas", "found element nan (number)");
  Outcome set = run_on("ok.toml", "", "--set train.epochs=1e999");
  expect_refused(set, "--set train.epochs=1e999", "train.epochs", "found 1e999 (= inf) (number)");
  CHECK(set.out.find("type_error") == std::string::npos);
  expect_refused(run_on("ok2.toml", "", "--set optimizer.lr=-inf"), "--set optimizer.lr=-inf",
                 "optimizer.lr", "found -inf (number)");
}

TEST_CASE("a YAML integer beyond 64 bits is an error naming the key, not a crash", "[recipe][hostile]") {
  expect_refused(run_on("seed.yaml", "run:\n  seed: 99999999999999999999\n"), "seed.yaml:2:", "run.seed",
                 "found 99999999999999999999 (number)");
}

TEST_CASE("epochs and threads have upper bounds", "[recipe][hostile]") {
  expect_refused(run_on("epochs.toml", "[train]\nepochs = 1e300\n"), "epochs.toml:2:", "train.epochs",
                 "expected a number in (0, 1000000]");
  expect_refused(run_on("threads.toml", "[run]\nthreads = 1000000\n"), "threads.toml:2:", "run.threads",
                 "expected an integer in [0, 1024]");
  // A label count no classifier fits in memory is refused at its line.
  expect_refused(run_on("labels.toml", "[data]\ndataset = \"tsv\"\nnum_labels = 2000000000\n"), "labels.toml:3:",
                 "data.num_labels", "expected an integer in [1, 100000]");
}

TEST_CASE("more threads than CPUs is a warning: the run uses the CPUs it has", "[recipe][hostile]") {
  // No machine this runs on gives one process 1024 CPUs.
  Outcome r = run_on("threads_many.toml", "[run]\nthreads = 1024\n");
  INFO(r.out);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("threads_many.toml:2:11: warning: run.threads: threads = 1024, but this process may use") !=
        std::string::npos);
}

TEST_CASE("betas must be two numbers at validate time", "[recipe][hostile]") {
  expect_refused(run_on("betas0.toml", "[optimizer]\nbetas = []\n"), "betas0.toml:2:", "optimizer.betas",
                 "expected a list of 2 numbers in [0, 1), found a list of 0 elements");
  expect_refused(run_on("betas1.yaml", "optimizer:\n  betas: [0.9]\n"), "betas1.yaml:2:", "optimizer.betas",
                 "found a list of 1 element [0.9]");
}

TEST_CASE("model settings that cannot build a model are refused at validate time", "[recipe][hostile]") {
  expect_refused(run_on("heads.toml", "[model]\npreset = \"bert-tiny\"\nhidden_size = 100\nnum_attention_heads = 3\n"),
                 "heads.toml:", "model.num_attention_heads", "hidden_size 100 is not a multiple of num_attention_heads 3");
  expect_refused(run_on("pos.toml", "[data]\nmax_length = 64\n[model]\npreset = \"bert-tiny\"\n"
                                    "max_position_embeddings = 8\n"),
                 "pos.toml:2:", "data.max_length", "need 64 positions, but the model has max_position_embeddings = 8");
  // 130 tokens padded to a multiple of 64 are 192 positions, more than 128.
  expect_refused(run_on("mult.toml", "[data]\nmax_length = 130\npad_to_multiple_of = 64\n[model]\n"
                                     "preset = \"bert-tiny\"\nmax_position_embeddings = 160\n"),
                 "mult.toml:3:", "data.pad_to_multiple_of", "need 192 positions");
  expect_refused(run_on("sgd.toml", "[optimizer]\ntype = \"sgd\"\nnesterov = true\n"), "sgd.toml:3:",
                 "optimizer.nesterov", "nesterov needs momentum > 0");
}

TEST_CASE("a model too large for this machine is refused, saying what it needs", "[recipe][hostile]") {
  // 10^8 layers of BERT-Tiny's 198,272 parameters each: 2e13 parameters, 160 TB.
  Outcome r = run_on("layers.toml", "[model]\npreset = \"bert-tiny\"\nnum_hidden_layers = 100000000\n");
  expect_refused(r, "layers.toml:", "model", "parameters");
  CHECK(r.out.find("this machine has") != std::string::npos);
  CHECK(r.seconds < 3.0);
}

TEST_CASE("a config.json too large for this machine is refused, naming the file", "[recipe][hostile]") {
  std::string dir = runner::test::tmp_dir("hostile_config_json");
  fs::create_directories(dir + "/huge");
  std::ofstream(dir + "/huge/config.json")
      << R"({"model_type": "bert", "vocab_size": 1000000000000, "hidden_size": 128,
             "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 512})";
  fs::create_directories(dir + "/float");
  std::ofstream(dir + "/float/config.json") << R"({"model_type": "bert", "vocab_size": 1e12})";
  std::ofstream(dir + "/r.toml") << "[model]\npretrained = \"./huge\"\n";
  std::ofstream(dir + "/f.toml") << "[model]\npretrained = \"./float\"\n";
  auto r = run_command("cd " + dir + " && " + runner::test::runner_exe() + " validate r.toml");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(r.out.find(dir + "/huge/config.json") != std::string::npos);
  CHECK(r.out.find("this machine has") != std::string::npos);
  auto f = run_command("cd " + dir + " && " + runner::test::runner_exe() + " validate f.toml");
  INFO(f.out);
  CHECK(f.exit_code == 2);
  CHECK(f.out.find(dir + "/float/config.json") != std::string::npos);
  CHECK(f.out.find("vocab_size") != std::string::npos);
  CHECK(f.out.find("expected an integer") != std::string::npos);
}

TEST_CASE("a run name must be one folder name", "[recipe][hostile]") {
  expect_refused(run_on("escape.toml", "[run]\nname = \"../../../../elsewhere/x\"\n"), "escape.toml:2:",
                 "run.name", "contains \"/\"");
  expect_refused(run_on("dotdot.toml", "[run]\nname = \"..\"\n"), "dotdot.toml:2:", "run.name", "is \"..\"");
  expect_refused(run_on("ctrl.toml", "[run]\nname = \"a\\u0001b\"\n"), "ctrl.toml:2:", "run.name",
                 "control character 0x01");
  expect_refused(run_on("nul.toml", "[run]\nname = \"a\\u0000b\"\n"), "nul.toml:2:", "run.name",
                 "control character 0x00");
  expect_refused(run_on("slash.toml", "", "--set run.name=a/b"), "--set run.name=a/b", "run.name",
                 "contains \"/\"");
}

TEST_CASE("runner run with an escaping run name creates nothing", "[recipe][hostile]") {
  std::string dir = runner::test::tmp_dir("hostile_run_escape");
  std::ofstream(dir + "/r.toml") << "[run]\nname = \"../elsewhere/x\"\noutput_dir = \"" << dir << "/runs\"\n";
  auto r = run_command("cd " + dir + " && " + runner::test::runner_exe() + " run r.toml");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK_FALSE(fs::exists(dir + "/runs"));
  CHECK_FALSE(fs::exists(dir + "/elsewhere"));
}

TEST_CASE("extends is interpolated like every string", "[recipe][hostile]") {
  std::string dir = runner::test::tmp_dir("hostile_extends_env");
  std::ofstream(dir + "/base.toml") << "[optimizer]\nlr = 0.125\n";
  std::ofstream(dir + "/other.toml") << "[optimizer]\nlr = 0.25\n";
  std::ofstream(dir + "/r.toml") << "extends = \"${RUNNER_TEST_BASE_RECIPE:-base.toml}\"\n";
  std::ofstream(dir + "/list.yaml") << "extends: [\"${RUNNER_TEST_BASE_RECIPE:-base.toml}\"]\n";
  std::ofstream(dir + "/unset.toml") << "# a base that must be named\nextends = \"${RUNNER_TEST_SURELY_UNSET_VAR}\"\n";
  std::string exe = runner::test::runner_exe();
  auto def = run_command("cd " + dir + " && env -u RUNNER_TEST_BASE_RECIPE " + exe + " print-config r.toml");
  INFO(def.out);
  CHECK(def.exit_code == 0);
  CHECK(def.out.find("lr = 0.125") != std::string::npos);
  auto set = run_command("cd " + dir + " && RUNNER_TEST_BASE_RECIPE=other.toml " + exe + " print-config list.yaml");
  INFO(set.out);
  CHECK(set.exit_code == 0);
  CHECK(set.out.find("lr = 0.25") != std::string::npos);
  auto unset = run_command("cd " + dir + " && env -u RUNNER_TEST_SURELY_UNSET_VAR " + exe + " validate unset.toml");
  INFO(unset.out);
  CHECK(unset.exit_code == 2);
  CHECK(unset.out.find("unset.toml:2:11: error: extends: environment variable RUNNER_TEST_SURELY_UNSET_VAR is not set") !=
        std::string::npos);
  CHECK(unset.out.find("1 error;") != std::string::npos);  // not also "cannot open ${...}"
}

TEST_CASE("text that is not UTF-8 is refused where it enters, naming where the bad byte is",
          "[recipe][hostile]") {
  // Latin-1 "café" (0xE9) in a YAML value: line 2, column 13 ("  name: \"caf" is 12 bytes).
  expect_refused(run_on("latin1.yaml", "run:\n  name: \"caf\xe9\"\n"), "latin1.yaml:2:13:", "",
                 "invalid UTF-8 byte 0xE9: a recipe is UTF-8 text");
  // The same byte in a --set value or a file name: refused before anything reads them,
  // since arguments go into the run's JSON records.
  Outcome set = run_on("ok.toml", "", "--set 'run.name=caf\xe9'");
  CHECK(set.exit_code == 2);
  CHECK(set.out.find("argument 4 (\"run.name=caf?\") has an invalid UTF-8 byte 0xE9 at character 13") !=
        std::string::npos);
  Outcome name = run_on("caf\xe9.toml", "[run]\nseed = 1\n", "", "run");
  INFO(name.out);
  CHECK(name.exit_code == 2);
  CHECK(name.out.find("argument 2 (\"caf?.toml\") has an invalid UTF-8 byte 0xE9 at character 4") !=
        std::string::npos);
  CHECK(name.out.find("hint: rename the file") != std::string::npos);
  // Nothing was written beside the recipe (the run's output_dir defaults to ./runs).
  fs::path dir = fs::path(runner::test::build_dir()) / "test-tmp" / "hostile_caf\xe9";
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  // Valid multi-byte text passes.
  CHECK(run_on("utf8.yaml", "run:\n  name: caf\xc3\xa9\n").exit_code != 2);
}
