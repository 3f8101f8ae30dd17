// `runner` is a front that links no LibTorch. It runs --help,
// completion, validate, ls ... itself, and hands the commands that need LibTorch
// (Needs::LibTorch in the command table), and recipes with plugins, to the full
// runner, runner-torch beside its real path, with the same arguments and input.
// What it saves is measured by bench/front_startup.py, not here.
#include "catch.h"

#include "shared.h"

#include "cli/commands.h"
#include "run/run_dir.h"

#include <torch/version.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

using namespace runner;
using test::run_command;
namespace fs = std::filesystem;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A front copied to DIR/real/runner beside a stand-in full runner that prints
// what it was given, and DIR/bin/runner, a link to the copy, as scripts/setup.sh
// puts one on PATH. Returns the link.
std::string front_with_stand_in(const std::string& dir) {
  fs::create_directories(dir + "/real");
  fs::create_directories(dir + "/bin");
  fs::copy_file(test::runner_exe(), dir + "/real/runner");
  std::ofstream(dir + "/real/runner-torch") << "#!/bin/sh\nprintf 'full runner:'\nprintf ' [%s]' \"$@\"\n"
                                                "printf '\\n'\ncat\n";
  fs::permissions(dir + "/real/runner-torch", fs::perms::owner_all, fs::perm_options::add);
  fs::create_symlink(dir + "/real/runner", dir + "/bin/runner");
  return dir + "/bin/runner";
}

// Each command of the table with arguments that reach its handler (or, where that
// needs a run, its first check): the front hands it over or runs it itself.
std::map<std::string, std::string> example_arguments(const std::string& dir) {
  return {
      {"validate", "validate " + test::smoke_recipe()},
      {"print-config", "print-config " + test::smoke_recipe()},
      {"schema", "schema"},
      {"describe", "describe model"},
      {"plugins", "plugins"},
      {"tokenize", "tokenize"},
      {"run", "run " + test::smoke_recipe()},
      {"resume", "resume " + dir},
      {"launch", "launch " + test::smoke_recipe()},
      {"predict", "predict --model " + dir},
      {"sweep", "sweep --schema"},
      {"compare", "compare"},
      {"export", "export " + dir},
      {"evaluate", "evaluate " + dir},
      {"report", "report " + dir},
      {"ls", "ls " + dir},
      {"init", "init --defaults " + dir + "/new.toml"},
      {"fetch", "fetch not-a-name"},
      {"env", "env"},
      {"completion", "completion bash"},
      {"version", "version"},
  };
}

}  // namespace

TEST_CASE("the front runner links no LibTorch; the full runner does", "[front]") {
  auto front = run_command("LD_TRACE_LOADED_OBJECTS=1 " + test::runner_exe());
  INFO(front.out);
  REQUIRE(front.exit_code == 0);
  CHECK(has(front.out, "libc.so"));
  CHECK_FALSE(has(front.out, "libtorch"));
  CHECK_FALSE(has(front.out, "libc10"));
  auto full = run_command("LD_TRACE_LOADED_OBJECTS=1 " + test::full_runner_exe());
  CHECK(has(full.out, "libtorch_cpu"));
}

TEST_CASE("the commands the front serves load no LibTorch at any point", "[front]") {
  const std::string dir = test::tmp_dir("front-served");
  // LD_DEBUG=libs names every library the dynamic loader maps, dlopen included,
  // in this process and in any it execs.
  const std::vector<std::string> served = {"--help", "help run", "run --help", "completion bash", "completion zsh",
                                           "ls " + dir, "validate " + test::smoke_recipe(),
                                           "validate --json " + test::smoke_recipe(), "schema", "describe model",
                                           "plugins", "version", "--version"};
  for (const auto& args : served) {
    auto r = run_command("LD_DEBUG=libs " + test::runner_exe() + " " + args + " </dev/null");
    INFO(args << "\n" << r.out.substr(0, 3000));
    CHECK(r.exit_code == 0);
    CHECK(has(r.out, "libstdc++"));  // LD_DEBUG did speak
    CHECK_FALSE(has(r.out, "libtorch"));
  }
}

TEST_CASE("the front hands a LibTorch command to runner-torch beside its real path, as it came", "[front]") {
  const std::string dir = test::tmp_dir("front-hand-over");
  const std::string runner = front_with_stand_in(dir);
  auto env = run_command(runner + " env --json </dev/null");
  INFO(env.out);
  CHECK(env.exit_code == 0);
  CHECK(has(env.out, "full runner: [env] [--json]"));

  // A recipe the front checks first: a usage error is the front's own, and costs no hand-over.
  auto bad = run_command(runner + " run " + test::smoke_recipe() + " --sett x </dev/null");
  CHECK(bad.exit_code == 2);
  CHECK_FALSE(has(bad.out, "full runner:"));
  auto run = run_command(runner + " " + test::smoke_recipe() + " --set train.epochs=1 </dev/null");
  CHECK(has(run.out, "full runner: [" + test::smoke_recipe() + "] [--set] [train.epochs=1]"));
}

TEST_CASE("a recipe with plugins goes to the full runner, with the input the front had read", "[front]") {
  const std::string dir = test::tmp_dir("front-plugins");
  const std::string runner = front_with_stand_in(dir);
  std::ofstream(dir + "/plugin.so") << "not loaded by the front";
  auto piped = run_command("cd " + dir + " && printf 'plugins = [\"plugin.so\"]\\n' | " + runner + " validate -");
  INFO(piped.out);
  CHECK(has(piped.out, "full runner: [validate] [-]\nplugins = [\"plugin.so\"]\n"));
  std::ofstream(dir + "/with_plugin.toml") << "plugins = [\"plugin.so\"]\n";
  auto listed = run_command("cd " + dir + " && " + runner + " plugins with_plugin.toml </dev/null");
  CHECK(has(listed.out, "full runner: [plugins] [with_plugin.toml]"));
  // A plugin that is not there is the front's own error, as the full runner words it.
  std::ofstream(dir + "/missing_plugin.toml") << "plugins = [\"gone.so\"]\n";
  auto missing = run_command("cd " + dir + " && " + runner + " validate missing_plugin.toml </dev/null");
  CHECK(missing.exit_code == 2);
  CHECK(has(missing.out, "gone.so does not exist"));
}

TEST_CASE("every command runs in the front or goes to the full runner, as the table says", "[front]") {
  const std::string dir = test::tmp_dir("front-table");
  const std::string runner = front_with_stand_in(dir);
  const std::string empty = dir + "/empty";
  fs::create_directories(empty);
  const auto examples = example_arguments(empty);
  for (const auto& c : command_table()) {
    INFO(c.name);
    REQUIRE(examples.count(c.name) == 1);  // a new command needs its example here
    auto r = run_command(runner + " " + examples.at(c.name) + " </dev/null");
    INFO(r.out.substr(0, 3000));
    CHECK(has(r.out, "full runner: [" + c.name + "]") == (c.needs == Needs::LibTorch));
  }
}

TEST_CASE("a front without its full runner says what is missing, and still serves its own commands",
          "[front]") {
  const std::string dir = test::tmp_dir("front-alone");
  fs::copy_file(test::runner_exe(), dir + "/runner");
  auto env = run_command(dir + "/runner env </dev/null");
  INFO(env.out);
  CHECK(env.exit_code == 1);
  CHECK(has(env.out, "error: this command needs LibTorch, which runs in " + dir + "/runner-torch"));
  CHECK(has(env.out, "ninja -C build runner-torch"));
  CHECK(run_command(dir + "/runner validate " + test::smoke_recipe()).exit_code == 0);
}

TEST_CASE("the front judges recipes as the full runner does", "[front]") {
  Capabilities front = capabilities_without_torch(), full = detect_capabilities();
  CHECK(front.cuda_build == full.cuda_build);
  CHECK(front.cuda_available == full.cuda_available);
  CHECK(front.native_bf16 == full.native_bf16);
  CHECK(front.mlflow_problem == full.mlflow_problem);
  CHECK(front.mlflow_fix == full.mlflow_fix);
  CHECK(libtorch_version() == TORCH_VERSION);  // meson.build read it from the same header

  std::vector<fs::path> recipes;
  for (const char* folder : {"recipes", "recipes/smoke", "tests/recipes/invalid"})
    for (const auto& e : fs::directory_iterator(fs::path(test::source_dir()) / folder))
      if (e.path().extension() == ".toml" || e.path().extension() == ".yaml") recipes.push_back(e.path());
  REQUIRE(recipes.size() > 45);
  for (const auto& recipe : recipes) {
    const std::string in_folder = "cd " + recipe.parent_path().string() + " && ";
    auto a = run_command(in_folder + test::runner_exe() + " validate " + recipe.filename().string());
    auto b = run_command(in_folder + test::full_runner_exe() + " validate " + recipe.filename().string());
    INFO(recipe.string() << "\nfront:\n" << a.out << "\nfull runner:\n" << b.out);
    CHECK(a.exit_code == b.exit_code);
    CHECK(a.out == b.out);
  }
  for (const char* args : {"schema", "describe model", "describe optimizer sgd", "plugins", "version"})
    CHECK(run_command(test::runner_exe() + " " + args).out ==
          run_command(test::full_runner_exe() + " " + args).out);
}

TEST_CASE("a front refuses to hand over to itself: runner-torch a link to it or a copy of it", "[front]") {
  const std::string dir = test::tmp_dir("front-itself");
  fs::create_directories(dir + "/link");
  fs::create_directories(dir + "/copy");
  fs::copy_file(test::runner_exe(), dir + "/link/runner");
  fs::create_symlink("runner", dir + "/link/runner-torch");
  fs::copy_file(test::runner_exe(), dir + "/copy/runner");
  fs::copy_file(test::runner_exe(), dir + "/copy/runner-torch");
  // `timeout`: a front that execs itself would never end.
  auto linked = run_command("timeout 20 " + dir + "/link/runner env </dev/null");
  INFO(linked.out);
  CHECK(linked.exit_code == 2);
  CHECK(has(linked.out, "error: " + dir + "/link/runner-torch: this command needs LibTorch"));
  CHECK(has(linked.out, "it is this front itself"));
  auto copied = run_command("timeout 20 " + dir + "/copy/runner env </dev/null");
  INFO(copied.out);
  CHECK(copied.exit_code == 2);
  CHECK(has(copied.out, "is a front too"));
  // The full runner forgets the hand-over: what it starts (sweep points, workers) may hand over again.
  auto full = run_command("RUNNER_HANDED_OVER_BY_FRONT=1 " + test::full_runner_exe() + " version </dev/null");
  CHECK(full.exit_code == 0);
}

TEST_CASE("without /proc the front refuses, and never runs a runner-torch from the working folder", "[front]") {
  if (run_command("unshare -m true").exit_code != 0) {
    WARN("no mount namespace here (unshare -m needs root): the case without /proc is not tried");
    return;
  }
  const std::string dir = test::tmp_dir("front-no-proc");
  std::ofstream(dir + "/runner-torch") << "#!/bin/sh\necho planted program ran\n";
  fs::permissions(dir + "/runner-torch", fs::perms::owner_all, fs::perm_options::add);
  // A tmpfs over /proc in a mount namespace of its own: /proc/self/exe is gone.
  auto r = run_command("unshare -m sh -c 'mount -t tmpfs none /proc && cd " + dir + " && timeout 20 " +
                       test::runner_exe() + " env </dev/null'");
  INFO(r.out);
  // In a sanitized build, LeakSanitizer cannot run without /proc (nor read
  // ASAN_OPTIONS from there to be turned off): after the refusal it exits 1.
  const bool leak_check_cannot_run = has(r.out, "LeakSanitizer has encountered a fatal error");
  CHECK((r.exit_code == 2 || leak_check_cannot_run));
  CHECK_FALSE(has(r.out, "planted program ran"));
  CHECK(has(r.out, "cannot tell its own folder"));
  CHECK(has(r.out, "never looks in the working folder"));
}
