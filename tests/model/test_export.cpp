// `runner export RUN_DIR [--checkpoint NAME] --to DIR` on a real (short) run of
// the smoke recipe: the folder reloads with the checkpoint's exact weights,
// `runner predict` on it gives the in-process model's logits, and every bad
// input is exit code 2 with nothing written.
#include "catch.h"

#include "export_support.h"
#include "model/export.h"
#include "run/run_dir.h"
#include "train/checkpoint_io.h"
#include "util/synced_file.h"
#include "run_files.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace runner;
using runner::test::run_command;
using runner::test::runner_exe;

namespace {

// 64 examples in batches of 16, one epoch: steps 1-4, checkpoints at 2 and 4.
std::string trained_run() {
  static const std::string run = test::smoke_run(
      "export_run", "--set train.epochs=1 --set train.checkpoint_every=2 --set train.keep_last=5");
  return run;
}

test::CommandResult export_cmd(const std::string& args) {
  return run_command(runner_exe() + " export " + args);
}

std::string fresh_target(const std::string& name) { return test::tmp_dir("export_to") + "/" + name; }

}  // namespace

TEST_CASE("export: the run's result (final/, here the newest step) reloads bit-identically and predicts the same", "[model]") {
  std::string run = trained_run();
  std::string to = fresh_target("newest");
  auto r = export_cmd(run + " --to " + to);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  std::string newest = list_checkpoints(run + "/checkpoints").back();
  CHECK(fs::path(newest).filename() == "step-00000004");
  test::check_same_weights(to + "/model.safetensors", newest + "/model.safetensors");
  for (const char* f : {"config.json", "model.safetensors", "vocab.txt"})
    CHECK(fs::is_regular_file(fs::path(to) / f));
  auto config = test::read_json(to + "/config.json");
  CHECK(config["architectures"] == nlohmann::json::array({"BertForSequenceClassification"}));
  CHECK(config["torch_dtype"] == "float32");
  CHECK(config["id2label"].size() == 2);
  CHECK(config["label2id"].size() == 2);
  CHECK(config["hidden_size"] == 128);  // the recipe's bert-tiny preset

  // Our loader on the exported folder gives the checkpoint's parameters exactly.
  auto reloaded = load_model_folder(to);
  CHECK(reloaded.report.missing.empty());
  for (auto& [name, t] : read_safetensors_weights(newest + "/model.safetensors")) {
    INFO(name);
    CHECK(torch::equal(reloaded.model->named_parameters()[name], t));
  }

  auto pairs = test::mrpc_pairs(5);
  auto got = test::cli_predict(to, pairs);
  REQUIRE(got.size() == 5);
  auto want = test::in_process_logits(to, newest, pairs).to(torch::kFloat64);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t k = 0; k < 2; ++k) CHECK(got[i][k] == Approx(want[i][k].item<double>()).margin(1e-6));
}

// With load_best_at_end the run's result is its best checkpoint, which final/
// holds: that is what a plain export writes, not the newest checkpoint. A
// learning rate of 1e-6 keeps the evaluations' f1 where it was at step 2 (a tie
// is no new best), while every step still moves the weights.
TEST_CASE("export: by default the run's result, final/, also when it is the best and not the newest", "[model]") {
  static const std::string run = test::smoke_run(
      "export_best_run", "--set train.epochs=1 --set train.checkpoint_every=2 --set train.eval_every=2 "
                         "--set train.keep_last=5 --set train.load_best_at_end=true --set optimizer.lr=1e-6 "
                         "--set train.metric_for_best=eval.f1");
  auto state = test::read_json(list_checkpoints(run + "/checkpoints").back() + "/state.json");
  REQUIRE(state["best"]["checkpoint"] == "step-00000002");
  std::string to = fresh_target("result");
  auto r = export_cmd(run + " --to " + to);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  test::check_same_weights(to + "/model.safetensors", run + "/checkpoints/step-00000002/model.safetensors");
  bool moved = false;  // step 4's weights are not step 2's: the case tells the two apart
  std::map<std::string, torch::Tensor> newest;
  for (auto& [name, t] : read_safetensors_weights(run + "/checkpoints/step-00000004/model.safetensors")) newest[name] = t;
  for (auto& [name, t] : read_safetensors_weights(to + "/model.safetensors"))
    moved |= newest.count(name) && !torch::equal(newest[name], t);
  CHECK(moved);
}

TEST_CASE("export: --checkpoint picks a step, best or final", "[model]") {
  std::string run = trained_run();
  std::string step2 = run + "/checkpoints/step-00000002";
  for (const char* name : {"step-00000002", "2"}) {
    std::string to = fresh_target(std::string("step_") + name);
    REQUIRE(export_cmd(run + " --checkpoint " + name + " --to " + to).exit_code == 0);
    test::check_same_weights(to + "/model.safetensors", step2 + "/model.safetensors");
  }
  auto state = test::read_json(list_checkpoints(run + "/checkpoints").back() + "/state.json");
  REQUIRE(state["best"]["has_best"] == true);
  std::string to = fresh_target("best");
  REQUIRE(export_cmd(run + " --checkpoint best --to " + to).exit_code == 0);
  test::check_same_weights(to + "/model.safetensors",
                     run + "/checkpoints/" + state["best"]["checkpoint"].get<std::string>() + "/model.safetensors");
  to = fresh_target("final");
  REQUIRE(export_cmd(run + " --checkpoint final --to " + to).exit_code == 0);
  test::check_same_weights(to + "/model.safetensors", run + "/final/model.safetensors");
}

TEST_CASE("export: bad input is exit 2 with the fix, and nothing is written", "[model]") {
  std::string run = trained_run();
  std::string to = fresh_target("refused");
  auto leftovers = [&] {  // neither the target nor a temporary folder beside it
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(fs::path(to).parent_path())) names.push_back(e.path().filename());
    return names;
  };

  auto r = export_cmd(test::tmp_dir("not_a_run") + " --to " + to);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("not a run directory") && Catch::Contains("env.json"));

  r = export_cmd(run + " --checkpoint step-00000003 --to " + to);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("no checkpoint \"step-00000003\"") &&
                        Catch::Contains("step-00000002, step-00000004") && Catch::Contains("final"));

  r = export_cmd(run);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("--to"));

  // A damaged checkpoint: one byte of its weights changed after the manifest.
  std::string copy = test::tmp_dir("export_damaged") + "/run";
  fs::copy(run, copy, fs::copy_options::recursive);
  {
    std::fstream f(copy + "/checkpoints/step-00000002/model.safetensors", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('\x7f');
  }
  r = export_cmd(copy + " --checkpoint 2 --to " + to);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("step-00000002") && Catch::Contains("sha256"));
  CHECK(leftovers().empty());

  fs::create_directories(to);
  std::ofstream(to + "/keep.txt") << "mine";
  r = export_cmd(run + " --to " + to);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("not an empty folder"));
  CHECK(leftovers() == std::vector<std::string>{"refused"});
  CHECK(read_file_bytes(to + "/keep.txt") == "mine");
  CHECK(std::distance(fs::directory_iterator(to), fs::directory_iterator()) == 1);

  // An empty folder is fine: it is replaced by the export.
  fs::remove(to + "/keep.txt");
  CHECK(export_cmd(run + " --to " + to).exit_code == 0);
  CHECK(fs::is_regular_file(to + "/model.safetensors"));
}

TEST_CASE("export: weights that cannot be written are exit 2 with the reason, and nothing is left", "[model]") {
  std::string run = trained_run();
  std::string to = fresh_target("full_disk");
  // A file size limit of 64 KiB stands in for a full disk: the weight file (a few MiB)
  // grows past it (EFBIG; SIGXFSZ is ignored so that the write returns the error).
  auto r = run_command("bash -c \"trap '' XFSZ; ulimit -f 64; " + runner_exe() + " export " + run + " --to " + to +
                       "\"");
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("model.safetensors") &&
                        Catch::Contains("the file grew past the largest the system allows") &&
                        Catch::Contains("free space on that disk"));
  CHECK_FALSE(fs::exists(to));
  CHECK(fs::is_empty(fs::path(to).parent_path()));  // the temporary folder is gone too
}

TEST_CASE("export: a best checkpoint recorded as a path outside the run names no checkpoint", "[model]") {
  std::string copy = test::tmp_dir("export_best_outside") + "/run";
  fs::copy(trained_run(), copy, fs::copy_options::recursive);
  const std::string newest = copy + "/checkpoints/step-00000004";
  test::edit_checkpoint_state(newest, [](nlohmann::json& state) {
    state["best"]["has_best"] = true;
    state["best"]["checkpoint"] = "../../../outside/evil";
  });
  REQUIRE(verify_checkpoint(newest).empty());

  auto r = export_cmd(copy + " --checkpoint best --to " + fresh_target("best_outside"));
  INFO(r.out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("no checkpoint \"best\"") && !Catch::Contains("evil"));
}
