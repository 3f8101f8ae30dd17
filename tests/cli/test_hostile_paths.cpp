// Paths past the system's limits and files that are
// not regular files. Each is refused with exit 2 naming the path (or the key
// or argument that gave it) and the fix, never with the file system's raw
// message, and a named pipe never blocks the runner: every command runs under
// a deadline (SIGKILL after 60 s), so a hang fails the test instead of the suite.
#include "catch.h"

#include "bounded_run.h"
#include "shared.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using runner::test::run_bounded;

namespace {

std::string deadline_runner() { return "timeout -s KILL 60 " + runner::test::runner_exe(); }
using runner::test::smoke_recipe;

void check_refused(const runner::test::BoundedResult& r) {
  INFO(r.out);
  CHECK(r.exit_code == 2);  // 137: killed at the deadline, it hung
  CHECK(r.out.find("filesystem error") == std::string::npos);
  CHECK(r.out.find("File name too long") == std::string::npos);
  CHECK(r.out.find("hint:") != std::string::npos);
}

// A GLUE-style data folder whose train.tsv is a named pipe (dev.tsv is real).
std::string data_dir_with_fifo(const std::string& dir) {
  std::string data = dir + "/data";
  fs::create_directories(data);
  fs::create_symlink(runner::test::shared_dir() + "/data/glue/MRPC/dev.tsv", data + "/dev.tsv");
  REQUIRE(::mkfifo((data + "/train.tsv").c_str(), 0600) == 0);
  return data;
}

// A path of `size` bytes under `dir` made of folder names of 200 bytes: within
// every limit itself, but with no room for the folders a run makes inside it.
std::string deep_folder(const std::string& dir, size_t size) {
  std::string path = dir;
  while (path.size() + 201 < size) path += "/" + std::string(200, 'd');
  return path + "/" + std::string(size - path.size() - 1, 'd');
}

}  // namespace

TEST_CASE("a data split, a tokenizer or a recipe that is a FIFO is refused at validate, and run leaves nothing",
          "[cli]") {
  std::string dir = runner::test::tmp_dir("hostile-fifo");
  std::string data = data_dir_with_fifo(dir);
  // Before: validate said valid, and run made its run directory and blocked forever in the open.
  auto validate = run_bounded(deadline_runner() + " validate " + smoke_recipe() + " --set data.dir=" + data);
  check_refused(validate);
  CHECK_THAT(validate.out, Catch::Contains(data + "/train.tsv") && Catch::Contains("a FIFO (named pipe)") &&
                               Catch::Contains("not a regular file"));
  auto run = run_bounded(deadline_runner() + " run " + smoke_recipe() + " --set data.dir=" + data +
                         " --set run.output_dir=" + dir + "/runs");
  check_refused(run);
  CHECK_THAT(run.out, Catch::Contains(data + "/train.tsv"));
  CHECK(!fs::exists(dir + "/runs"));  // nothing left behind

  std::string fifo = dir + "/vocab.txt";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto tokenizer = run_bounded(deadline_runner() + " validate " + smoke_recipe() + " --set tokenizer.path=" + fifo);
  check_refused(tokenizer);
  CHECK_THAT(tokenizer.out, Catch::Contains("tokenizer.path") && Catch::Contains("found a FIFO (named pipe)"));

  // A model folder whose weights are a pipe: refused at validate, naming the file.
  std::string model = dir + "/model";
  fs::create_directories(model);
  fs::copy_file(runner::test::shared_dir() + "/golden/tiny_bert/config.json", model + "/config.json");
  REQUIRE(::mkfifo((model + "/model.safetensors").c_str(), 0600) == 0);
  auto weights = run_bounded(deadline_runner() + " validate " + smoke_recipe() + " --set model.pretrained=" + model);
  check_refused(weights);
  CHECK_THAT(weights.out, Catch::Contains("model.pretrained") && Catch::Contains(model + "/model.safetensors is a FIFO"));

  std::string recipe = dir + "/recipe.toml";
  REQUIRE(::mkfifo(recipe.c_str(), 0600) == 0);
  auto pipe_recipe = run_bounded(deadline_runner() + " validate " + recipe);
  check_refused(pipe_recipe);
  CHECK_THAT(pipe_recipe.out, Catch::Contains(recipe) && Catch::Contains("found a FIFO"));
}

TEST_CASE("paths past PATH_MAX or NAME_MAX are refused where they are given, naming the key or argument",
          "[cli]") {
  std::string dir = runner::test::tmp_dir("hostile-long-paths");
  std::string long_path = "/tmp/" + std::string(5000, 'a');
  std::string long_name = dir + "/" + std::string(300, 'b');  // one component past 255 bytes
  std::string validate = deadline_runner() + " validate " + smoke_recipe();
  struct Case {
    std::string command, names;
  };
  // Before: exit 1 with "filesystem error: status: File name too long", and
  // validate --set run.output_dir=LONG said "valid".
  const Case cases[] = {
      {validate + " --set data.dir=" + long_path, "data.dir"},
      {validate + " --set tokenizer.path=" + long_name, "tokenizer.path"},
      {validate + " --set model.pretrained=a/b@" + std::string(5000, 'c'), "model.pretrained"},
      {validate + " --set run.output_dir=" + long_path, "run.output_dir"},
      {validate + " --set run.output_dir=" + deep_folder(dir, 4050), "run.output_dir"},  // the run's folders would not fit
      {deadline_runner() + " validate " + long_path + ".toml", "RECIPE"},
      {deadline_runner() + " report " + long_path, "PATH"},
      {deadline_runner() + " report " + dir + " --out " + long_name, "--out"},
      {deadline_runner() + " ls " + long_name, "DIR"},
      {deadline_runner() + " fetch a/b@" + std::string(5000, 'e'), "NAME"},
  };
  for (const auto& c : cases) {
    INFO(c.command.substr(0, 160));
    auto r = run_bounded(c.command);
    check_refused(r);
    CHECK_THAT(r.out, Catch::Contains(c.names));
    CHECK((r.out.find("PATH_MAX") != std::string::npos || r.out.find("NAME_MAX") != std::string::npos));
  }
  // 300-byte names below the limits stay fine.
  auto fine = run_bounded(validate + " --set run.output_dir=" + dir + "/" + std::string(200, 'f'));
  INFO(fine.out);
  CHECK(fine.exit_code == 0);
}

TEST_CASE("a tokenizer, model or data path that is a loop of symbolic links is refused by name", "[cli]") {
  const std::string dir = runner::test::tmp_dir("hostile-link-loop");
  fs::create_symlink(dir + "/loop_b", dir + "/loop_a");
  fs::create_symlink(dir + "/loop_a", dir + "/loop_b");
  for (const char* key : {"tokenizer.path", "model.pretrained", "data.dir"}) {
    INFO(key);
    auto r = run_bounded(deadline_runner() + " validate " + smoke_recipe() + " --set " + key + "=" + dir + "/loop_a");
    check_refused(r);
    CHECK_THAT(r.out, Catch::Contains(key) && Catch::Contains(dir + "/loop_a") &&
                          Catch::Contains("Too many levels of symbolic links"));
  }
}
